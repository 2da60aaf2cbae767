import APNSimProvider
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// A Live Activity outlives a gateway restart, as an activity on a phone outlives an APNs outage: the device keeps
/// it, tells the new gateway about it when it registers again, and its push token reaches it.
@Suite("Live Activities across a gateway restart", .endToEnd)
struct LiveActivityRestartTests {
    @Test("After the gateway restarts, a device's running activity is listed again and its push token still updates it",
          .hangGuard)
    func activityOutlivesGateway() async throws {
        let first = try await GatewayProcess.start(devicePort: try RestartPort.pick())
        let types = #"[{"name":"DeliveryAttributes","attributes":{"orderID":"String"},"contentState":{"status":"String","etaMinutes":"Int"}}]"#
        let device = try await ApnsimProcess(["device", "--id", "la-1", "--device-port", String(first.devicePort), "--certs", "Certs",
                                              "--data", temporaryDirectory(), "--activity-types", "com.example.app:\(types)",
                                              "--stop-when-stdin-closes"] + DeviceProcess.hangGuardTimeouts)
        defer { Task { await device.stop() } }
        _ = try await device.waitForOutput("registered, token")
        let started = try await first.control.post("/v1/devices/la-1/activities", #"""
            {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"R-1"},
             "contentState":{"status":"packed","etaMinutes":40}}
            """#)
        #expect(started.status == 201)
        let view = try #require(started.json as? [String: Any])
        let id = try #require(view["id"] as? String)
        let token = try #require(view["token"] as? String)
        await first.process.stop()

        // A new gateway on the same device port, knowing nothing of the activity until the device links again.
        let second = try await GatewayProcess.start(devicePort: first.devicePort)
        defer { Task { await second.process.stop() } }
        try await second.control.waitUntil("the device to tell the new gateway its activity") {
            let listed = try await second.control.get("/v1/activities?token=\(token)").json as? [[String: Any]] ?? []
            return listed.first?["id"] as? String == id
        }
        let client = try await second.connect()
        defer { Task { await client.close() } }
        let apnsID = UUID().uuidString
        let response = try await client.send(.push(token: token, payload: """
            {"aps":{"event":"update","timestamp":1800000100,"content-state":{"status":"on the way","etaMinutes":15}}}
            """, headers: [("authorization", "bearer \(try GatewayProcess.jwt())"), ("apns-topic", "com.example.app.push-type.liveactivity"),
                           ("apns-push-type", "liveactivity"), ("apns-id", apnsID)]))
        #expect(response.status == 200, "\(response.reason ?? "")")
        let record = try #require(try await DeviceDeliveryTests.delivery(second.control, apnsID: apnsID))
        #expect((record["activity"] as? [String: Any])?["result"] as? String == "applied", "\(record)")
        let listed = try #require(try await second.control.get("/v1/activities?token=\(token)").json as? [[String: Any]])
        #expect((listed.first?["contentState"] as? [String: Any])?["status"] as? String == "on the way")
    }
}
