import APNSimRules
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Downloads what an extension attaches, as an extension's URLSession would: redirects followed, 2xx only, the
/// body capped at the largest attachment iOS takes, within the time the extension has left. Saves the file
/// under the device's folder and checks it as `UNNotificationAttachment` would.
public struct AttachmentDownloader: Sendable {
    /// One more byte than a movie may have, so an oversized body is known without reading all of it.
    static let bodyLimit = AttachmentRules.Kind.movie.maximumSize + 1

    let client: HTTPClient
    /// Where a file is written: on the extension's thread, or on a pool while the disk stalls.
    let writes: AttachmentWrites
    /// Where attachments are saved; a temporary folder when the device keeps no data.
    let directory: URL
    /// ``directory``'s path, worked out once: joining a name to the URL and reading its path back took Foundation
    /// 40,000 instructions a rich push (`Benchmarks/instructions.sh`, the rich path).
    let folder: String

    /// The client every extension in the process shares, set up as an extension's URLSession behaves: up to 5
    /// redirects (no loops), gzip and deflate decoded (up to 100 times the compressed size), and a refused or
    /// unreachable server fails the download at once instead of being retried until the budget runs out. One
    /// process may run many devices, each of which would have its own connections to a media host; the pool
    /// allows 64 per host where async-http-client's default is 8 (Benchmarks/e2e.sh, rich-push run). A connection
    /// may take as long as URLSession's request timeout (60 s) to open, so the extension's budget, the deadline of
    /// each download, is what ends a slow one, as on iOS; async-http-client's own 10 s ended downloads on a busy machine
    /// that the budget still had room for.
    ///
    /// Downloads are not traced (docs/tracing.md: a download is inside its extension's span, not a span of its own):
    /// with the tracer the process bootstraps, even a no-op one, async-http-client works out each request's span
    /// attributes from its URL, 35,000 instructions a download (`Benchmarks/instructions.sh`, the rich path).
    public static let sharedClient: HTTPClient = {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.retryConnectionEstablishment = false
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(60)),
            connectionPool: pool,
            decompression: .enabled(limit: .ratio(100)))
        configuration.tracing.tracer = nil
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(client: HTTPClient = AttachmentDownloader.sharedClient, directory: URL, writes: AttachmentWrites = .shared) {
        self.client = client
        self.writes = writes
        self.directory = directory
        self.folder = directory.path
    }

    /// Downloads `url`, saves it as `name.EXTENSION` and checks it; `fileExtension` picks the extension from the
    /// response, as each vendor's extension does in its own way. Throws a ``ExtensionError`` (a sentence) when
    /// nothing could be downloaded; a file iOS would refuse comes back with its refusal.
    public func attach(_ url: String, identifier: String, name: String, timeout: Duration,
                       fileExtension: @Sendable (DownloadResponse) -> String) async throws(ExtensionError) -> NotificationContent.Attachment {
        let response = try await download(url, timeout: timeout)
        return try await save(response.bytes, as: name, fileExtension: fileExtension(response), identifier: identifier, url: url)
    }

    /// Saves `bytes` as `name.fileExtension` and checks them as iOS would an attachment of that name.
    public func save(_ bytes: [UInt8], as name: String, fileExtension: String, identifier: String,
                     url: String) async throws(ExtensionError) -> NotificationContent.Attachment {
        let fileName = fileExtension.isEmpty ? name : "\(name).\(fileExtension)"
        // A plain name is joined as `URL.appendingPathComponent` joins it; anything else goes through the URL. (The
        // byte search, not `String.contains("/")`: with Foundation imported that is NSString's, 10,000 instructions a push.)
        let file = fileName.isEmpty || fileName.utf8.contains(UInt8(ascii: "/")) || folder.hasSuffix("/") ? directory.appendingPathComponent(fileName).path
            : folder + "/" + fileName
        let folder = folder
        @Sendable func write() throws {
            do {
                try Self.write(bytes, to: file)
            } catch {
                // The folder is made when a write fails, not checked before each one (a `stat` a push); then it goes
                // as it always did: the folder made, the file written, or the error of whichever failed.
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                try Self.write(bytes, to: file)
            }
        }
        do {
            try await writes.perform(write)
        } catch {
            throw ExtensionError("cannot save the attachment at \(file): \(error)")
        }
        return NotificationContent.Attachment(identifier: identifier,
                                              type: AttachmentRules.fileType(forExtension: fileExtension)?.uti,
                                              size: bytes.count, sha256: NotificationContent.Attachment.sha256(of: bytes), url: url,
                                              refusal: AttachmentRules.refusal(fileExtension: fileExtension, bytes: bytes),
                                              file: file)
    }

    /// Writes the file without syncing it to the disk. Foundation's `Data.write(to:)` syncs every file it writes
    /// (`fsync`), which held one of the process's few concurrency threads for each attachment: a hundred devices'
    /// extensions took turns on the disk, and a rich push's rate stayed near a thousand a second however many devices
    /// ran (`Benchmarks/e2e.sh`). A simulated device's attachment need not outlive a crash of its machine.
    static func write(_ bytes: [UInt8], to file: String) throws {
        let descriptor = try FileDescriptor.open(FilePath(file), .writeOnly, options: [.create, .truncate],
                                                 permissions: [.ownerReadWrite, .groupRead, .otherRead])
        try descriptor.closeAfter { _ = try descriptor.writeAll(bytes) }
    }

    /// Downloads `url` within `timeout`: a plain `http://` URL on ``PlainHTTPConnections``, following redirects by
    /// async-http-client's rules; any other (`https://`) through ``client``.
    func download(_ url: String, timeout: Duration) async throws(ExtensionError) -> DownloadResponse {
        do {
            guard let target = PlainHTTPTarget(url) else { return try await downloadThroughClient(url, timeout: timeout) }
            return try await downloadPlain(url, target: target, deadline: .now() + TimeAmount(timeout))
        } catch let error as ExtensionError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw ExtensionError("\(url) sent more than \(Self.bodyLimit - 1) bytes (\(error))")
        } catch let error as HTTPClientError where error == .redirectCycleDetected || error == .redirectLimitReached {
            throw ExtensionError("cannot download \(url): its redirects loop or go on past 5 (\(error))")
        } catch let error as NIOConnectionError {
            // As async-http-client names a refused connection: the error of the attempt, not the list of attempts.
            throw ExtensionError("cannot download \(url): \(error.connectionErrors.first.map { "\($0.error)" } ?? "\(error)")")
        } catch {
            throw ExtensionError("cannot download \(url): \(error)")
        }
    }

    private func downloadPlain(_ url: String, target first: PlainHTTPTarget, deadline: NIODeadline) async throws -> DownloadResponse {
        var target = first
        // async-http-client's redirect rules (its `RedirectState`, set up in ``sharedClient``): the URLs visited, the
        // first as given; a sixth redirect, or one to a URL visited already, is an error.
        var visited = [url]
        while true {
            let answer = try await PlainHTTPConnections.shared.get(target.path, of: target.host, limit: Self.bodyLimit, deadline: deadline)
            if let next = PlainHTTPTarget.redirect(answer.head, from: target.url) {
                guard visited.count <= 5 else { throw HTTPClientError.redirectLimitReached }
                guard !visited.contains(next) else { throw HTTPClientError.redirectCycleDetected }
                visited.append(next)
                guard let plain = PlainHTTPTarget(next) else {
                    // To `https://`: the rest of the way through the client.
                    let left = deadline - .now()
                    return try await downloadThroughClient(next, timeout: .nanoseconds(max(left.nanoseconds, 0)), naming: url)
                }
                target = plain
                continue
            }
            guard answer.isSuccess else {
                throw ExtensionError("\(url) answered \(answer.head.status.code) \(answer.head.status.reasonPhrase)",
                                     httpStatus: Int(answer.head.status.code))
            }
            return DownloadResponse(url: url, contentType: answer.head.headers.first(name: "content-type"),
                                    contentDisposition: answer.head.headers.first(name: "content-disposition"),
                                    bytes: Array(answer.body.readableBytesView), status: Int(answer.head.status.code))
        }
    }

    /// Downloads `url` through async-http-client; errors name `naming` (the URL the extension asked for).
    private func downloadThroughClient(_ url: String, timeout: Duration, naming: String? = nil) async throws -> DownloadResponse {
        let named = naming ?? url
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: TimeAmount(timeout))
        guard (200..<300).contains(response.status.code) else {
            throw ExtensionError("\(named) answered \(response.status.code) \(response.status.reasonPhrase)", httpStatus: Int(response.status.code))
        }
        let body = try await response.body.collect(upTo: Self.bodyLimit)
        return DownloadResponse(url: named, contentType: response.headers.first(name: "content-type"),
                                contentDisposition: response.headers.first(name: "content-disposition"),
                                bytes: Array(body.readableBytesView), status: Int(response.status.code))
    }
}

/// A plain `http://` URL as a download asks for it: the host and port to connect to, and the request's target (the
/// path and query, as written). `nil` for any other URL, and for one with user info (the client's to handle).
struct PlainHTTPTarget: Equatable {
    var url: String
    var host: PlainHTTPConnections.Host
    var path: String

    init?(_ url: String) {
        let bytes = Array(url.utf8)
        let scheme = Array("http://".utf8)
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ ($0 | 0x20) == $1 || $0 == $1 }) else { return nil }
        let rest = bytes[scheme.count...]
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")) else { return nil }
        var name = authority[...]
        var port = 80
        if authority.first == UInt8(ascii: "[") {
            // An IPv6 literal: [::1] or [::1]:8080.
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            name = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":"), let parsed = Int(String(decoding: after.dropFirst(), as: UTF8.self)) else { return nil }
                port = parsed
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            name = authority[..<colon]
            let digits = authority[authority.index(after: colon)...]
            if !digits.isEmpty {
                guard let parsed = Int(String(decoding: digits, as: UTF8.self)) else { return nil }
                port = parsed
            }
        }
        guard !name.isEmpty, (1...65_535).contains(port), name.allSatisfy(Self.isHostByte) else { return nil }
        let targetEnd = rest[authorityEnd...].firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
        let target = rest[authorityEnd..<targetEnd]
        // Anything a request line cannot carry as it is (a space, a byte past ASCII) is the client's to refuse or escape.
        guard target.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        self.url = url
        self.host = .init(name: String(decoding: name, as: UTF8.self).lowercased(), port: port)
        self.path = target.first == UInt8(ascii: "/") ? String(decoding: target, as: UTF8.self) : "/" + String(decoding: target, as: UTF8.self)
    }

    /// A host name's letters, digits, dots and hyphens, or an IPv6 literal's hex digits, colons and dots.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"): true
        default: false
        }
    }

    /// Where `head` redirects a request for `url`, as async-http-client reads a redirect: a 301, 302, 303, 304, 305,
    /// 307 or 308 with a `Location`, resolved against `url`, to `http` or `https`.
    static func redirect(_ head: HTTPResponseHead, from url: String) -> String? {
        switch head.status {
        case .movedPermanently, .found, .seeOther, .notModified, .useProxy, .temporaryRedirect, .permanentRedirect: break
        default: return nil
        }
        guard let location = head.headers.first(name: "location"), let base = URL(string: url),
              let next = URL(string: location, relativeTo: base), let scheme = next.scheme?.lowercased(),
              scheme == "http" || scheme == "https" else { return nil }
        return next.absoluteURL.absoluteString
    }
}

/// A finished download, with what vendors' extensions name the file by.
public struct DownloadResponse: Sendable {
    public var url: String
    public var contentType: String?
    public var contentDisposition: String?
    public var bytes: [UInt8]
    /// The server's HTTP status (2xx: others are errors).
    public var status = 200

    /// The Content-Type without its parameters, lower-cased.
    public var mimeType: String? {
        contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The file name as Foundation's `URLResponse.suggestedFilename` gives it: Content-Disposition's `filename`,
    /// else the URL's last path component, else `Unknown`; a name without an extension gets the one of its MIME
    /// type when that is a type Apple lists.
    public var suggestedFilename: String {
        var name = contentDisposition.flatMap(Self.filename(inDisposition:))
            ?? URL(string: url).map(\.lastPathComponent).flatMap { $0.isEmpty || $0 == "/" ? nil : $0 } ?? "Unknown"
        if (name as NSString).pathExtension.isEmpty, let mimeType, let fileExtension = AttachmentRules.fileExtension(forMIME: mimeType) {
            name += "." + fileExtension
        }
        return name
    }

    /// `attachment; filename="a.jpg"` → `a.jpg`.
    static func filename(inDisposition header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "filename" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : (value as NSString).lastPathComponent
        }
        return nil
    }
}
