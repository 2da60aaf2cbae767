import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Synchronization
import Testing

/// An app removed through one replica while pushes for it go through another (docs/cluster.md, "An app removed"):
/// part of ``ClusterTests``, run in `.ci/run`'s cluster step.
extension ClusterTests {
    @Test("An app removed through the device's replica, pushed through another at once: each push is answered 200 and recorded dropped, or 410 Unregistered; none is displayed, and the other replica answers 410 once it has heard")
    func removedAcross() async throws {
        try await PostgresServer.with { postgres in
            let home = try await Self.replica("home", on: postgres)
            defer { home.process.signal(SIGINT) }
            let other = try await Self.replica("other", on: postgres)
            defer { other.process.signal(SIGINT) }
            let (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: temporaryDirectory())
            defer { devices.signal(SIGINT) }
            let device = try #require(try await home.control.get("/v1/devices").body?.array?.first?["id"]?.string)
            let jwt = try GatewayProcess.jwt()
            let client = try await other.connect()
            defer { Task { await client.close() } }
            // Through `other` first, so it has taken the token in from the store.
            let before = try await Self.push("before", to: tokens[0], on: client, jwt: jwt)
            let shown = try await home.control.get("/v1/deliveries?apnsId=\(before.id)&wait=60&count=1").body?.array?.first
            #expect(shown?["outcome"]?.string == "displayed", "\(String(describing: shown))")

            let removed = try await home.control.delete("/v1/devices/\(device)/apps/com.example.app")
            #expect(removed.status == 200, "\(removed.text)")
            let answers = Mutex<[(id: String, status: Int, body: String)]>([])
            let atOnce = try await Self.push("at once", to: tokens[0], on: client, jwt: jwt)
            answers.withLock { $0 = [atOnce] }
            // Each push through `other` is a send it records, which wakes the wait to push again: until one is refused.
            try await other.control.waitUntil("the other replica to answer 410 Unregistered") {
                let answer = try await Self.push("until refused", to: tokens[0], on: client, jwt: jwt)
                answers.withLock { $0.append(answer) }
                return answer.status == 410
            }
            let all = answers.withLock { $0 }
            #expect(all.allSatisfy { $0.status == 200 || ($0.status == 410 && $0.body.contains("Unregistered")) }, "\(all)")
            for answer in all where answer.status == 200 {
                let record = try await home.control.get("/v1/deliveries?apnsId=\(answer.id)&wait=60&count=1").body?.array?.first
                #expect(record?["outcome"]?.string == "dropped", "accepted before the other replica heard: \(String(describing: record))")
                #expect(record?["detail"]?.string?.contains("was removed from device") == true, "\(String(describing: record))")
            }
        }
    }
}
