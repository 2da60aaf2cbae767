// A helper that imports only Foundation (and os.log), as many do, and downloads with URLSession.
import Foundation
import os.log

@objcMembers
final class MediaFetcher: NSObject {
    func fetch(_ address: String?, then done: @escaping (URL?) -> Void) {
        guard let address, let url = URL(string: address) else { return done(nil) }
        let log = OSLog(subsystem: "com.example.app.NotificationService", category: "fetch")
        os_log("fetching %{public}@", log: log, type: .debug, url.absoluteString)
        URLSession.shared.downloadTask(with: url) { location, _, _ in
            guard let location else { return done(nil) }
            let file = location.deletingPathExtension().appendingPathExtension(url.pathExtension)
            try? FileManager.default.moveItem(at: location, to: file)
            done(file)
        }.resume()
    }
}
