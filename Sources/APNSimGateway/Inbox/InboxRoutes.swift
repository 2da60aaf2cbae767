import APNSimStore
import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// The sandbox inbox: `GET /` serves a page that shows every simulated device the way its screen would, live
/// (docs/inbox.md), from files in the package's resources, so it works offline; `GET /v1/events` is the
/// Server-Sent Events stream it (and any test) listens to.
extension ControlAPI {
    static let inboxFiles: [String: String] = [
        "index.html": "text/html; charset=utf-8", "inbox.css": "text/css; charset=utf-8",
        "inbox.js": "text/javascript; charset=utf-8",
    ]

    func addInboxRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.inboxFile("index.html") }
        router.get("inbox/:file") { _, context in Self.inboxFile(context.parameters.get("file") ?? "") }
    }

    private static func inboxFile(_ name: String) -> Response {
        guard let type = inboxFiles[name] else { return ControlJSON.error("there is no inbox file \(name)", status: .notFound) }
        guard let folder = resourcesFolder, let data = try? Data(contentsOf: folder.appendingPathComponent(name)) else {
            return ControlJSON.error("the inbox's files (\(bundleName)) are not beside the apnsim binary; copy them with it",
                                     status: .notFound)
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The resource bundle SwiftPM builds beside the binary. Looked up by hand: `Bundle.module` stops the process
    /// when the bundle is missing (a binary copied elsewhere without it), and the control API must not.
    static let bundleName = "apnsim_APNSimGateway.resources"

    static let resourcesFolder: URL? = {
        let places = [Bundle.main.bundleURL, Bundle.main.executableURL?.deletingLastPathComponent(),
                      URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()].compactMap { $0 }
        return places.map { $0.appendingPathComponent(bundleName).appendingPathComponent("Resources") }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("index.html").path) }
    }()

    /// `GET /v1/events`: `event: deliveries` each time the delivery record changes (the page then asks for what is
    /// new), and a comment every 15 s so proxies keep the stream. It ends after five minutes (EventSource
    /// reconnects by itself) or within a second of the gateway starting to shut down.
    func events() -> Response {
        let deliveries = self.deliveries
        let stopping = self.stopping
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: {}\n\n"))
            let end = ContinuousClock.now + .seconds(300)
            var generation = deliveries.generation
            var quiet = ContinuousClock.now
            while ContinuousClock.now < end, !Task.isCancelled, !stopping.isSet {
                await deliveries.nextChange(since: generation, before: min(end, .now + .seconds(1)))
                let now = deliveries.generation
                if now != generation {
                    generation = now
                    quiet = .now
                    try await writer.write(ByteBuffer(string: "event: deliveries\ndata: {\"generation\":\(now)}\n\n"))
                } else if ContinuousClock.now - quiet > .seconds(15) {
                    quiet = .now
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}

/// Set when the gateway starts to shut down, so open event streams end instead of holding the control API open.
final class StopSignal: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
