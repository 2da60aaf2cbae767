import APNSimCore
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The media server rich pushes point at (`http://127.0.0.1:8199`): `GET /media/NAME` serves the fixture file NAME
/// from its folder (`Scenarios/media`), and `GET /stats` says how many requests each path got (a campaign to many
/// devices makes a spike of downloads). A service: it stops on graceful shutdown.
///
/// The query scripts what goes wrong, for testing an extension's failure paths: `delay=SECONDS` (up to 60) before
/// answering, `status=CODE` instead of 200, `type=MIME` as the Content-Type.
public struct MediaServer: Service {
    public var host: String
    public var port: Int
    /// The folder whose files are served.
    public var directory: URL
    /// Called with the bound port once the server listens (useful with port 0).
    public var onReady: @Sendable (Int) async -> Void = { _ in }
    let logger: Logger
    private let counts = RequestCounts()

    public init(directory: URL, host: String = "127.0.0.1", port: Int = 8199, logger: Logger = Logger(label: "apnsim.media")) {
        self.directory = directory
        self.host = host
        self.port = port
        self.logger = logger
    }

    public func run() async throws {
        let onReady = onReady
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(host, port: port), serverName: "apnsim-media"),
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
            var response = serve(name)
            if let text = query["status"].map(String.init) {
                guard let code = Int(text), (200...599).contains(code) else {
                    return Self.text(.badRequest, "status takes 200 to 599; got \(text)")
                }
                response.status = .init(code: code)
            }
            if let type = query["type"].map(String.init) { response.headers[.contentType] = type }
            return response
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

    private func serve(_ name: String) -> Response {
        // Only plain file names of the folder: no path may leave it.
        guard !name.contains("/"), !name.hasPrefix("."),
              let bytes = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            return Self.text(.notFound, "no media file \(name) in \(directory.path)")
        }
        return Response(status: .ok, headers: [.contentType: Self.contentType(of: name)],
                        body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func contentType(of name: String) -> String {
        AttachmentRules.fileType(forExtension: (name as NSString).pathExtension)?.mime ?? "application/octet-stream"
    }
}

/// Requests served, by path.
private final class RequestCounts: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func add(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
    var snapshot: [String: Int] { counts.withLock { $0 } }
}

/// The media server could not start, in a sentence naming the address.
public struct MediaServerError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
