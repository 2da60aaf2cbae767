import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Store-and-forward across replicas (docs/cluster.md, "One stored push per app"): part of ``ClusterTests``, run in
/// `.ci/run`'s cluster step.
extension ClusterTests {
    @Test("One stored push per app across replicas: stored through one replica while the device is away, a newer one through another, the device back through a third: the newer is displayed once, the older never (recorded replaced)")
    func storedAcross() async throws {
        try await PostgresServer.with { postgres in
            let home = try await Self.replica("home", on: postgres)
            defer { home.process.signal(SIGINT) }
            let first = try await Self.replica("first", on: postgres)
            defer { first.process.signal(SIGINT) }
            let second = try await Self.replica("second", on: postgres)
            defer { second.process.signal(SIGINT) }
            let data = temporaryDirectory()
            var (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: data)
            let device = try #require(try await home.control.get("/v1/devices").body?.array?.first?["id"]?.string)
            // Any replica lists every device, one that never heard of it too, as its own replica lists it.
            let listed = try await second.control.get("/v1/devices").body?.array?.first { $0["id"]?.string == device }
            #expect(listed?["replica"]?.string == "home" && listed?["online"]?.bool == true, "\(String(describing: listed))")
            await devices.stop()
            try await home.control.waitUntil("the device to be offline everywhere") {
                try await postgres.query("SELECT count(*) FROM device_links") == ["0"]
            }

            let jwt = try GatewayProcess.jwt()
            var answers: [(id: String, status: Int, body: String)] = []
            for (replica, title) in [(first, "older"), (second, "newer")] {
                let client = try await replica.connect()
                answers.append(try await Self.push(title, to: tokens[0], on: client, jwt: jwt))
                await client.close()
            }
            #expect(answers.map(\.status) == [200, 200], "\(answers)")
            #expect(try await postgres.query("SELECT delivery::json ->> 'apnsID' FROM held_pushes") == [answers[1].id],
                    "the store holds the newer alone")

            (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: data)
            defer { devices.signal(SIGINT) }
            let newer = try await home.control.get("/v1/deliveries?apnsId=\(answers[1].id)&wait=60&count=1").body?.array?.first
            #expect(newer?["outcome"]?.string == "displayed", "\(String(describing: newer))")
            let older = try await home.control.get("/v1/deliveries?apnsId=\(answers[0].id)").body?.array?.first
            #expect(older?["outcome"]?.string == "dropped", "\(String(describing: older))")
            #expect(older?["detail"]?.string?.hasPrefix("replaced by a newer push") == true, "\(String(describing: older))")
            // Every delivery the device displayed, read after a second push through the home replica is displayed (the
            // record is in order): the newer once, the older never.
            let client = try await home.connect()
            let last = try await Self.push("after", to: tokens[0], on: client, jwt: jwt)
            await client.close()
            _ = try await home.control.get("/v1/deliveries?apnsId=\(last.id)&wait=60&count=1")
            let displayed = try await home.control.get("/v1/deliveries?device=\(device)").body?.array?
                .filter { $0["outcome"]?.string == "displayed" }.compactMap { $0["apnsId"]?.string } ?? []
            #expect(displayed.filter { $0 == answers[1].id }.count == 1 && !displayed.contains(answers[0].id), "\(displayed)")
            // Each replica's metrics name it: one Prometheus scraping all three keeps them apart.
            let metrics = try await home.control.get("/metrics").text
            #expect(metrics.contains(#"apnsim_deliveries_total{replica="home",outcome="displayed"}"#), "\(metrics.prefix(2_000))")
        }
    }
}
