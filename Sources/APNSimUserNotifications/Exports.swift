// What `import UserNotifications` brings on Apple's systems comes with this module too: Foundation, and on Linux
// Foundation's networking, so `URLSession.shared.downloadTask(with:)` builds as written in an extension.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
