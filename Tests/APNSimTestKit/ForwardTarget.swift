import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A team's backend as a test double for `responses.forward`: `POST /responses` answers each request with the next of
/// `statuses` (200 once they run out) and keeps every body it was sent.
package final class ForwardTarget: Sendable {
    private let state: Mutex<(statuses: [Int], bodies: [Data])>

    package init(statuses: [Int]) { state = Mutex((statuses, [])) }

    /// The bodies received so far, oldest first.
    package var bodies: [Data] { state.withLock { $0.bodies } }

    fileprivate func take(_ body: Data) -> Int {
        state.withLock { state in
            state.bodies.append(body)
            return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
        }
    }
}

/// Runs a ``ForwardTarget`` on an ephemeral port until `body` returns; `body` gets its `/responses` URL.
package func withForwardTarget<T: Sendable>(statuses: [Int] = [],
                                            _ body: @escaping @Sendable (_ url: String, _ target: ForwardTarget) async throws -> T) async throws -> T {
    let target = ForwardTarget(statuses: statuses)
    let router = Router()
    router.post("responses") { request, _ -> Response in
        let received = try await request.body.collect(upTo: 1 << 20)
        let status = target.take(Data(received.readableBytesView))
        return Response(status: .init(code: status), body: .init(byteBuffer: ByteBuffer(string: #"{"stored":\#(status == 200)}"#)))
    }
    let (ports, sink) = AsyncStream.makeStream(of: Int.self)
    let logger = testLogger("apnsim.forward.test")
    let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          onServerRunning: { channel in sink.yield(channel.localAddress?.port ?? 0); sink.finish() }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw MediaServerDidNotStart() }
        let result: Result<T, any Error>
        do { result = .success(try await body("http://127.0.0.1:\(port)/responses", target)) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}
