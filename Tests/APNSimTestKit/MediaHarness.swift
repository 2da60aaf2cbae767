import APNSimExtensions
import APNSimRules
import Foundation
import Logging
import ServiceLifecycle

/// Runs the media server on an ephemeral port, serving `directory` (`Scenarios/media`), until `body` returns.
package func withMediaServer<T: Sendable>(directory: URL = repositoryRoot.appendingPathComponent("Scenarios/media"),
                                          _ body: @escaping @Sendable (_ baseURL: String) async throws -> T) async throws -> T {
    let logger = testLogger("apnsim.media.test")
    var server = MediaServer(directory: directory, port: 0, logger: logger)
    let (ports, sink) = AsyncStream.makeStream(of: Int.self)
    server.onReady = { sink.yield($0); sink.finish() }
    let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw MediaServerDidNotStart() }
        let result: Result<T, any Error>
        do { result = .success(try await body("http://127.0.0.1:\(port)")) } catch { result = .failure(error) }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
        return try result.get()
    }
}

/// The package's root folder (this file is `Tests/APNSimTestKit/MediaHarness.swift`).
package let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

package struct MediaServerDidNotStart: Error {}

/// The fixtures' SHA-256, as the delivery record carries it.
package func fixtureSHA256(_ name: String) throws -> String {
    let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("Scenarios/media/\(name)"))
    return NotificationContent.Attachment.sha256(of: Array(data))
}
