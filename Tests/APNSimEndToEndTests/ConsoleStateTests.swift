import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Each state of Apple's Push Notifications Console's delivery log, produced end to end and read from the delivery
/// record's `consoleState`.
@Suite("Push Notifications Console states", .endToEnd)
struct ConsoleStateTests {
    static func push(_ harness: GatewayHarness, _ token: DeviceToken, _ extra: [(name: String, value: String)] = []) async throws -> String {
        let apnsID = UUID().uuidString
        #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: GatewayHarness.alert, apnsID: apnsID, extra: extra).status == 200)
        return apnsID
    }

    static func state(_ control: ControlClient, _ apnsID: String, waiting: Bool = true) async throws -> String? {
        let records = waiting ? try await control.deliveries("apnsId=\(apnsID)")
            : try #require(try await control.get("/v1/deliveries?apnsId=\(apnsID)").json as? [[String: Any]])
        return records.first?["consoleState"] as? String
    }

    @Test("Delivered, stored while offline then delivered from storage, discarded as expired, stored for power then delivered from storage, discarded as disabled, discarded as unregistered")
    func everyState() async throws {
        try await withGateway({ $0.uninstallDelay = .seconds(120) }) { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await Self.state(control, try await Self.push(harness, token)) == "delivered")

                #expect(try await control.post("/v1/devices/device-1/offline").status == 200)
                let stored = try await Self.push(harness, token)
                #expect(try await Self.state(control, stored, waiting: false) == "storedOffline")
                let once = try await Self.push(harness, token, [("apns-expiration", "0")])
                #expect(try await Self.state(control, once) == "discardedExpired")
                #expect(try await control.post("/v1/devices/device-1/online").status == 200)
                #expect(try await Self.state(control, stored) == "deliveredFromStorage")
                let apnsim = try ApnsimProcess.executable.path
                let url = ["--control-url", "http://127.0.0.1:\(harness.endpoints.controlPort)"]
                let log = try await ChildProcess.run([apnsim, "delivery-log", stored] + url)
                #expect(log.status == .exited(0))
                #expect(log.output.hasPrefix("push \(stored): 200 at "), "\(log.output)")
                #expect(log.output.contains("  device-1 com.example.app: deliveredFromStorage (displayed), stored "), "\(log.output)")
                let unique = try #require(try await DeviceDeliveryTests.push(harness, token: token, payload: GatewayHarness.alert,
                                                                             apnsID: UUID().uuidString)["apns-unique-id"])
                _ = try await control.deliveries("uniqueId=\(unique)")
                let found = try await ChildProcess.run([apnsim, "delivery-log", unique] + url)
                #expect(found.output.contains("apns-unique-id \(unique)") && found.output.contains(": delivered (displayed)"), "\(found.output)")
                let missing = try await ChildProcess.run([apnsim, "delivery-log", "no-such-push"] + url)
                #expect(missing.status == .exited(1))
                #expect(missing.output == "apnsim: no push the gateway answered has the apns-unique-id or apns-id no-such-push\n")

                #expect(try await control.post("/v1/devices/device-1/low-power").status == 200)
                let quiet = try await Self.push(harness, token, [("apns-priority", "5")])
                #expect(try await Self.state(control, quiet, waiting: false) == "storedForPower")
                #expect(try await Self.state(control, try await Self.push(harness, token)) == "delivered", "priority 10 goes at once")
                #expect((try await control.get("/v1/devices").json as? [[String: Any]])?.first?["lowPowerMode"] as? Bool == true)
                #expect(try await control.delete("/v1/devices/device-1/low-power").status == 200)
                #expect(try await Self.state(control, quiet) == "deliveredFromStorage")

                #expect(try await control.post("/v1/devices/device-1/apps/com.example.app/notifications", #"{"enabled":false}"#).status == 200)
                let off = try await Self.push(harness, token)
                #expect(try await Self.state(control, off) == "discardedDisabled")
                #expect(try await control.post("/v1/devices/device-1/apps/com.example.app/notifications", #"{"enabled":"no"}"#).status == 400)
                #expect(try await control.post("/v1/devices/device-1/apps/com.example.app/notifications", #"{"enabled":true}"#).status == 200)

                #expect(try await control.delete("/v1/devices/device-1/apps/com.example.app").status == 200)
                #expect(try await Self.state(control, try await Self.push(harness, token)) == "discardedUnregistered")
                // Every discarded push is a dropped delivery in the metrics, the one completed at acceptance too.
                let samples = MetricsTests.samples(try #require(try await control.get("/metrics").json as? String))
                #expect(MetricsTests.value(samples, "apnsim_deliveries_total", ["outcome": "dropped"]) == 3)
                #expect(MetricsTests.value(samples, "apnsim_stored_pushes_total", ["reason": "offline"]) == 1)
                #expect(MetricsTests.value(samples, "apnsim_stored_pushes_total", ["reason": "power"]) == 1)
            }
        }
    }
}
