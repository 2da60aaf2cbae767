import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Synchronization
import Testing

/// The provider client must have its HTTP/2 handlers in place before the server's first bytes can arrive. It used to
/// add them in a callback on the future `connect` returns, attached by the calling task after `connect` had started.
/// With both cores busy that task could be descheduled before attaching it; meanwhile the event loop finished the TLS
/// handshake and read the gateway's SETTINGS, which reached the end of the pipeline and were dropped. The client then
/// took the gateway's SETTINGS ACK for a protocol error (ReceivedBadSettings), closed, and its first request failed
/// with "I/O on closed channel": 3 to 8 times in these 3,000 connections, and the request-reason test once in about 60
/// full runs. Now everything is set up in the channel initializer, which runs on the event loop before the connection
/// starts.
extension Stress {
    @Suite("Stress: connection set-up")
    struct ConnectionSetupStressTests {
        /// Every first request is answered however long the 3,000 take (`Benchmarks/connections.sh` measures how long).
        @Test("3,000 fresh gateways and connections with the CPU busy: every first request is answered")
        func freshConnectionsUnderLoad() async throws {
            let failures = Failures()
            try await withThrowingTaskGroup(of: Void.self) { load in
                for _ in 0..<2 {
                    load.addTask { await Self.keepBusy(until: failures) }
                }
                try await withThrowingTaskGroup(of: Void.self) { connections in
                    // A gateway each, as the request-reason tests have.
                    for round in 0..<3_000 {
                        connections.addTask {
                            do {
                                try await withGateway { harness in
                                    let client = try await harness.connect()
                                    let request = RequestReasonTests.push(TestWorld.otherTeamToken, topic: "com.other.team")(harness)
                                    let response = try await client.send(request)
                                    if response.status != 403 { failures.add("connection \(round): status \(response.status)") }
                                    await client.close()
                                }
                            } catch {
                                failures.add("connection \(round): \(error)")
                            }
                        }
                        if round >= 40 { try await connections.next() }
                    }
                    try await connections.waitForAll()
                }
                failures.finish()
                try await load.waitForAll()
            }
            let seen = failures.all
            #expect(seen.isEmpty, "\(seen.count) of 3000 first requests failed: \(seen.prefix(5))")
        }

        /// CPU-bound work on the cooperative pool with rare yields, as the fuzz suites do: it is what descheduled the
        /// connecting task. Without it the old client did not fail in 9,000 connections.
        private static func keepBusy(until failures: Failures) async {
            var x: UInt64 = 1
            while !failures.finished {
                for _ in 0..<2_000_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 }
                await Task.yield()
            }
            #expect(x != 0)
        }
    }
}

private final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    private let done = Atomic<Bool>(false)
    func add(_ failure: String) { list.withLock { $0.append(failure) } }
    var all: [String] { list.withLock { $0 } }
    func finish() { done.store(true, ordering: .relaxed) }
    var finished: Bool { done.load(ordering: .relaxed) }
}
