import APNSimRules
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The media server rich pushes point at (`http://127.0.0.1:8199`): `GET /media/NAME` serves the fixture file NAME
/// from its folder (`Scenarios/media`), `POST /media/echo` answers with the body it was sent (a forward URL's test
/// double), and `GET /stats` says how many requests each path got (a campaign to many devices makes a spike of
/// downloads). A file is read once and kept while it stays as it was (``MediaFiles``); a plain `GET /media/NAME` of a
/// kept file is answered on the connection's event loop, as the router would answer it (``MediaFastPath``). A service:
/// it stops on graceful shutdown.
///
/// The query scripts what goes wrong, for testing an extension's failure paths: `delay=SECONDS` (up to 60) before
/// answering, `status=CODE` instead of 200, `type=MIME` as the Content-Type, `filename=NAME` (Content-Disposition:
/// attachment; filename="NAME"), `gzip=1` (Content-Encoding: gzip),
/// `truncate=BYTES` (the full Content-Length, then only that many bytes and the connection closed), `size=BYTES`
/// (the file padded with zeros to that size, up to 2 GB, streamed), `redirect=N` (N redirects before the file) or
/// `redirect=loop` (a redirect to itself). A name without an extension serves the first of NAME.jpg, .png, .gif,
/// .mp4 and .m4a, as a CDN URL without one would.
public struct MediaServer: Service {
    public var host: String
    public var port: Int
    /// The folder whose files are served.
    public var directory: URL
    /// Called with the bound port once the server listens (useful with port 0).
    public var onReady: @Sendable (Int) async -> Void = { _ in }
    let logger: Logger
    private let counts = MediaRequestCounts()
    private let files = MediaFiles()

    public init(directory: URL, host: String = "127.0.0.1", port: Int = 8199, logger: Logger = Logger(label: "apnsim.media")) {
        self.directory = directory
        self.host = host
        self.port = port
        self.logger = logger
    }

    static let serverName = "apnsim-media"

    public func run() async throws {
        let onReady = onReady
        let (folder, files, counts) = (directory.path, files, counts)
        let app = Application(
            router: makeRouter(),
            server: .http1(configuration: .init(additionalChannelHandlers: [
                MediaFastPath(folder: folder, files: files, counts: counts, serverName: Self.serverName),
            ])),
            configuration: .init(address: .hostname(host, port: port), serverName: Self.serverName),
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        do {
            // As a service of the caller's group: runService() would trap SIGINT and SIGTERM itself and stop
            // ahead of the gateway.
            try await app.run()
        } catch let error as IOError {
            throw MediaServerError("cannot serve media on \(host):\(port): \(error); pick another port (apnsim up --media-port, apnsim media --port)")
        }
    }

    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        let folder = directory.path
        router.get("media/:name") { request, context in
            counts.add(request.uri.path)
            let name = try context.parameters.require("name")
            let query = request.uri.queryParameters
            if let text = query["delay"].map(String.init) {
                guard let delay = Double(text), delay.isFinite, (0...60).contains(delay) else {
                    return Self.text(.badRequest, "delay takes 0 to 60 seconds; got \(text)")
                }
                try await Task.sleep(for: .milliseconds(Int64(delay * 1000)))
            }
            if let redirect = query["redirect"].map(String.init) {
                return try Self.redirect(request, remaining: redirect)
            }
            guard let (file, bytes) = lookUp(name, in: folder) else {
                return Self.text(.notFound, "no media file \(name) in \(folder)")
            }
            var response = try Self.body(bytes, query: query)
            response.headers[.contentType] = Self.contentType(of: file)
            if let text = query["status"].map(String.init) {
                guard let code = Int(text), (200...599).contains(code) else {
                    return Self.text(.badRequest, "status takes 200 to 599; got \(text)")
                }
                response.status = .init(code: code)
            }
            if let type = query["type"].map(String.init) { response.headers[.contentType] = type }
            if let filename = query["filename"].map(String.init) {
                guard !filename.isEmpty, !filename.contains("\""), filename.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
                    return Self.text(.badRequest, "filename takes printable ASCII without quotes; got \(filename)")
                }
                response.headers[.contentDisposition] = "attachment; filename=\"\(filename)\""
            }
            return response
        }
        // A test double of a team's backend for an app's `responses.forward` (`${media}/echo` in a scenario's world):
        // each POST is answered 200 with its own body.
        router.post("media/echo") { request, _ in
            counts.add(request.uri.path)
            let body = try await request.body.collect(upTo: 1 << 20)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
        }
        router.get("stats") { _, _ in
            let body = try JSONEncoder().encode(counts.snapshot)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return router
    }

    private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    /// The fixture `name` names, and its bytes. Only plain file names of the folder: no path may leave it.
    private func lookUp(_ name: String, in folder: String) -> (String, [UInt8])? {
        guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
        let candidates = Self.fileExtension(of: name).isEmpty ? ["jpg", "png", "gif", "mp4", "m4a"].map { "\(name).\($0)" } : [name]
        for candidate in candidates {
            if let bytes = files.contents(atPath: Self.path(of: candidate, in: folder)) {
                return (candidate, bytes)
            }
        }
        return nil
    }

    /// The file `name` of `folder` (a plain name: no path of its own), joined without Foundation's URL.
    static func path(of name: String, in folder: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// A 302 to the same URL with one redirect fewer (`redirect=N`), or to itself (`redirect=loop`).
    private static func redirect(_ request: Request, remaining: String) throws -> Response {
        var components = URLComponents(string: request.uri.description) ?? URLComponents()
        if remaining != "loop" {
            guard let count = Int(remaining), (1...20).contains(count) else {
                return text(.badRequest, "redirect takes 1 to 20 or loop; got \(remaining)")
            }
            components.queryItems = components.queryItems?.compactMap { item in
                item.name != "redirect" ? item : count > 1 ? URLQueryItem(name: "redirect", value: String(count - 1)) : nil
            }
            if components.queryItems?.isEmpty == true { components.queryItems = nil }
        }
        return Response(status: .found, headers: [.location: components.string ?? request.uri.path])
    }

    /// The body `gzip`, `truncate` and `size` in the query make of `bytes`.
    private static func body(_ bytes: [UInt8], query: FlatDictionary<Substring, Substring>) throws -> Response {
        if let text = query["size"].map(String.init) {
            guard let size = Int(text), (bytes.count...2_000_000_000).contains(size) else {
                return Self.text(.badRequest, "size takes \(bytes.count) (the file's size) to 2000000000 bytes; got \(text)")
            }
            return Response(status: .ok, body: ResponseBody(contentLength: size) { writer in
                try await writer.write(ByteBuffer(bytes: bytes))
                let zeros = ByteBuffer(repeating: 0, count: 1 << 16)
                var left = size - bytes.count
                while left > 0 {
                    try await writer.write(left >= zeros.readableBytes ? zeros : zeros.getSlice(at: 0, length: left)!)
                    left -= zeros.readableBytes
                }
                try await writer.finish(nil)
            })
        }
        if let text = query["truncate"].map(String.init) {
            guard let keep = Int(text), (0..<bytes.count).contains(keep) else {
                return Self.text(.badRequest, "truncate takes 0 to \(bytes.count - 1) bytes; got \(text)")
            }
            return Response(status: .ok, body: ResponseBody(contentLength: bytes.count) { writer in
                try await writer.write(ByteBuffer(bytes: bytes[..<keep]))
                throw TruncatedBody()  // the server closes the connection short of the Content-Length
            })
        }
        if query["gzip"] == "1" {
            return Response(status: .ok, headers: [.contentEncoding: "gzip"], body: .init(byteBuffer: try Gzip.compress(bytes)))
        }
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func contentType(of name: String) -> String {
        AttachmentRules.fileType(forExtension: String(fileExtension(of: name)))?.mime ?? "application/octet-stream"
    }

    /// The extension of a name the server serves (no `/`, no leading `.`), as `NSString.pathExtension` reads it: what
    /// follows the last `.`. Read for every request: Foundation's took 10,000 instructions, and `URL.path` 18,000.
    static func fileExtension(of name: String) -> Substring {
        guard let dot = name.lastIndex(of: ".") else { return "" }
        return name[name.index(after: dot)...]
    }
}

/// Ends a `truncate` response early.
private struct TruncatedBody: Error {}

/// Requests served, by path.
final class MediaRequestCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func add(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
    var snapshot: [String: Int] { counts.withLock { $0 } }
}

/// The media server could not start, in a sentence naming the address.
public struct MediaServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
