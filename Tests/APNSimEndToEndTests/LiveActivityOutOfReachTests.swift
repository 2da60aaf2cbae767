import APNSimDevice
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// An app ends its Live Activity while its device has no link: the device learns of it when it links again, before
/// the pushes held for it, as a phone whose app ended the activity would have it ended.
@Suite("Live Activities: ended while the device is out of reach", .endToEnd)
struct LiveActivityOutOfReachTests {
    @Test("An activity ended while its device has no link is answered 202, pending, and ended on the device once it links, as the gateway then shows it; an update held meanwhile is ignored there")
    func endWhileOutOfReach() async throws {
        try await withGateway { harness in
            let control = harness.control
            // One device object run twice, so what it holds in memory (its activities) outlives its link.
            let logger = testLogger("apnsim.device.test")
            let host = DeviceHost(configuration: deviceConfiguration(harness, id: "device-1"), logger: logger)
            let first = Task { try await DeviceHostGroup.run([host], logger: logger) }
            guard await host.registers(within: HangGuard.limit) else { throw HarnessError("device-1 did not register") }
            let (id, token) = try await LiveActivityLifecycleTests.start(control, order: "R-7")
            first.cancel()
            _ = await first.result
            _ = try await control.devices { devices in
                devices.contains { $0["id"] as? String == "device-1" && $0["online"] as? Bool == false }
            }

            let ended = try await control.post("/v1/activities/\(id)/end", #"{"contentState":{"status":"delivered","etaMinutes":0}}"#)
            #expect(ended.status == 202, "\(ended.json)")
            // The gateway does not end it by itself: it shows the device's last report, with the end pending.
            #expect((ended.json as? [String: Any])?["endPending"] as? Bool == true, "\(ended.json)")
            #expect((ended.json as? [String: Any])?["ended"] as? Bool == false, "\(ended.json)")
            #expect(host.state(ofActivity: id)?.endedAt == nil, "the device has not heard of it yet")

            // An update sent now is held for the device, and reaches it after the end.
            let client = try await harness.connect()
            defer { Task { await client.close() } }
            let apnsID = UUID().uuidString
            let response = try await client.send(.push(token: token, payload: #"""
                {"aps":{"event":"update","timestamp":1800000100,"content-state":{"status":"on the way","etaMinutes":15}}}
                """#, headers: harness.headers(jwt: harness.jwt(), topic: "com.example.app.push-type.liveactivity",
                                               pushType: "liveactivity", extra: [("apns-id", apnsID)])))
            #expect(response.status == 200)

            let second = Task { try await DeviceHostGroup.run([host], logger: logger) }
            defer { second.cancel() }
            let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
            #expect((record["activity"] as? [String: Any])?["result"] as? String == "ignored", "\(record)")
            let onDevice = try #require(host.state(ofActivity: id))
            #expect(onDevice.endedAt != nil, "ended on the device")
            #expect(onDevice.contentState["status"] == .string("delivered"), "with the app's final state")
            // The gateway's copy is the device's report of the end, not one of its own.
            let listed = try #require(try await control.get("/v1/activities?device=device-1").json as? [[String: Any]])
            let view = try #require(listed.first { $0["id"] as? String == id })
            #expect(view["ended"] as? Bool == true && view["endPending"] as? Bool == false, "\(view)")
            #expect(view["endedAt"] != nil && (view["contentState"] as? [String: Any])?["status"] as? String == "delivered", "\(view)")
        }
    }
}
