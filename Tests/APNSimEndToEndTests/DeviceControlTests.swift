import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Driving devices through the control API: offline and online, installing and removing apps.
@Suite("Device control", .endToEnd)
struct DeviceControlTests {
    @Test("Offline on request: pushes are stored; back online, they are delivered")
    func offlineOnline() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/offline").status == 200)
                let devices = try await control.get("/v1/devices").json as? [[String: Any]]
                #expect(devices?.first?["online"] as? Bool == false)

                let apnsID = UUID().uuidString
                #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"while away"}}"#,
                                                           apnsID: apnsID).status == 200)
                let pending = try #require(try await control.get("/v1/deliveries?apnsId=\(apnsID)").json as? [[String: Any]])
                #expect(pending.first?["outcome"] == nil, "stored, not delivered: \(pending)")
                #expect(device.displayed.isEmpty)

                #expect(try await control.post("/v1/devices/device-1/online").status == 200)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed")
                #expect(try await control.post("/v1/devices/no-such-device/online").status == 404)
            }
        }
    }

    @Test("Foreground and background through the API: willPresent's options decide; bad requests are refused with a sentence")
    func foreground() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/foreground", #"{"bundleID":"com.example.app"}"#).status == 200)
                let hidden = UUID().uuidString
                _ = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"open"}}"#, apnsID: hidden)
                #expect(try await DeviceDeliveryTests.delivery(control, apnsID: hidden)?["outcome"] as? String == "suppressed")
                #expect(try await control.post("/v1/devices/device-1/background", #"{"bundleID":"com.example.app"}"#).status == 200)
                let shown = UUID().uuidString
                _ = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"closed"}}"#, apnsID: shown)
                #expect(try await DeviceDeliveryTests.delivery(control, apnsID: shown)?["outcome"] as? String == "displayed")

                let bad = try await control.post("/v1/devices/device-1/foreground", #"{"bundleID":"com.example.app","options":["alert"]}"#)
                #expect(bad.status == 400)
                #expect(((bad.json as? [String: Any])?["error"] as? String)?.contains("got alert") == true)
                #expect(try await control.post("/v1/devices/device-1/foreground", #"{"options":[]}"#).status == 400)
                #expect(try await control.post("/v1/devices/nobody/restart").status == 409)
            }
        }
    }

    @Test("A restarted device links again with the same token and shows what is sent after")
    func restart() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/restart").status == 200)
                let apnsID = UUID().uuidString
                #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"after"}}"#,
                                                           apnsID: apnsID).status == 200)
                #expect(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID)?["outcome"] as? String == "displayed")
                #expect(device.tokens["com.example.app"] == token)
            }
        }
    }

    @Test("Installing through the API registers the app; iOS's refusals come back as 422 with the reason")
    func install() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let control = harness.control
                let installed = try await control.post("/v1/devices/device-1/apps",
                                                       #"{"bundleID":"com.example.other","environment":"development"}"#)
                #expect(installed.status == 200)
                let token = try #require((installed.json as? [String: Any])?["token"] as? String)
                let apps = (try await control.get("/v1/devices").json as? [[String: Any]])?.first?["apps"] as? [[String: Any]]
                #expect(apps?.contains { $0["bundleID"] as? String == "com.example.other" && $0["token"] as? String == token } == true)

                let apnsID = UUID().uuidString
                let client = try await harness.connect()
                let response = try await client.send(.push(token: token, payload: #"{"aps":{"alert":"other app"}}"#,
                    headers: harness.headers(jwt: harness.jwt(), topic: "com.example.other", extra: [("apns-id", apnsID)])))
                await client.close()
                #expect(response.status == 200)
                #expect(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID)?["bundleID"] as? String == "com.example.other")

                var expired = AppManifest.signed(bundleID: "com.example.late", team: TestWorld.team, environment: .development,
                                                 now: Date())
                expired.profile.expires = Date(timeIntervalSince1970: 1_700_000_000)
                let body = String(decoding: try JSONEncoder().encode(expired), as: UTF8.self)
                let refused = try await control.post("/v1/devices/device-1/apps", body)
                #expect(refused.status == 422)
                #expect((refused.json as? [String: Any])?["kind"] as? String == "expiredProfile")
                #expect(((refused.json as? [String: Any])?["error"] as? String)?.contains("expired on") == true)

                #expect(try await control.post("/v1/devices/device-1/apps", "not json").status == 400)
                #expect(try await control.post("/v1/devices/ghost/apps", #"{"bundleID":"com.example.app"}"#).status == 409)
            }
        }
    }

    @Test("Two installs of one app at once both get the device's answer, each waiting on its own deadline", .hangGuard)
    func concurrentInstalls() async throws {
        // A Swift extension of its own (a new file builds afresh): the device answers after its build, seconds later.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-install-twice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("// \(UUID())\nimport UserNotifications\nclass NotificationService: UNNotificationServiceExtension {}\n".utf8)
            .write(to: folder.appendingPathComponent("NotificationService.swift"))
        var app = AppManifest.signed(bundleID: "com.example.twice", team: TestWorld.team, environment: .development, now: Date())
        app.serviceExtension = ServiceExtensionManifest(bundleID: "com.example.twice.NotificationService", kind: .swift,
                                                        source: folder.appendingPathComponent("NotificationService.swift").path)
        let body = String(decoding: try JSONEncoder().encode(app), as: UTF8.self)
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let control = harness.control
                // One gives up after 1 s; the other waits. Before each waiter had its own deadline, whichever came
                // second took the first's place: either the patient one was answered 202 (pending) by the impatient one's timer,
                // or the patient one waited for ever. So the order they arrive in does not matter.
                async let impatient = control.post("/v1/devices/device-1/apps?wait=1", body)
                async let patientAnswer = control.post("/v1/devices/device-1/apps?wait=600", body)
                let (first, patient) = try await (impatient, patientAnswer)
                #expect(patient.status == 200, "\(patient.json)")
                #expect((patient.json as? [String: Any])?["token"] as? String != nil)
                #expect([200, 202].contains(first.status), "\(first.json)")
            }
        }
    }

    @Test("Removing an app: a push within the uninstall delay is answered 200 and recorded dropped, saying why; then its token answers 410 Unregistered",
          arguments: [0.0, 120.0])
    func uninstall(delay: Double) async throws {
        try await withGateway({ $0.uninstallDelay = .seconds(delay) }) { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                let removed = try await control.delete("/v1/devices/device-1/apps/com.example.app")
                #expect(removed.status == 200)
                let push = { (apnsID: String) in
                    try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"x"}}"#, apnsID: apnsID)
                }
                if delay > 0 {
                    let apnsID = UUID().uuidString
                    #expect(try await push(apnsID).status == 200, "still accepted within the delay")
                    // Accepted, and recorded: dropped, with why (no device owns the token any more).
                    let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID), "the accepted push has no record")
                    #expect(record["outcome"] as? String == "dropped")
                    #expect(record["device"] as? String == "device-1")
                    #expect((record["detail"] as? String)?.contains("com.example.app was removed from device device-1 at ") == true, "\(record)")
                    harness.clock.advance(by: delay + 1)
                }
                let gone = try await push(UUID().uuidString)
                #expect(gone.status == 410)
                #expect(gone.reason == "Unregistered")
                let expected = Int64(((harness.clock.now.timeIntervalSince1970 - (delay > 0 ? 1 : 0)) * 1000).rounded())
                #expect(gone.bodyText.contains(#""timestamp":\#(expected)"#), "\(gone.bodyText)")
                #expect(try await control.delete("/v1/devices/device-1/apps/com.example.app").status == 404)
            }
        }
    }
}

extension DeviceControlTests {
    /// APNs learns of an uninstall from the device (Apple, "Handling notification responses from APNs": the 410's
    /// timestamp is when APNs confirmed the token was no longer valid): until a push reaches the device, pushes are
    /// answered 200 and discarded (`discardedUnregistered`), that push too; then 410 with its time.
    @Test("Removed, then 200 and discarded while the device is out of reach and for the push that reaches it, then 410 from that push's time")
    func uninstallLearned() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                let removed = try await control.delete("/v1/devices/device-1/apps/com.example.app")
                #expect(removed.status == 200)
                #expect((removed.json as? [String: Any])?["unregisteredFrom"] == nil, "not known until the device tells APNs")
                let push = { (apnsID: String) in
                    try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"x"}}"#, apnsID: apnsID)
                }
                #expect(try await control.post("/v1/devices/device-1/offline", "").status == 200)
                let away = UUID().uuidString
                #expect(try await push(away).status == 200, "the device is out of reach: APNs does not know yet")
                let awayRecord = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: away))
                #expect(awayRecord["consoleState"] as? String == "discardedUnregistered", "\(awayRecord)")
                #expect((awayRecord["detail"] as? String)?.contains("out of reach") == true, "\(awayRecord)")
                #expect(try await control.post("/v1/devices/device-1/online", "").status == 200)

                harness.clock.advance(by: 30)
                let telling = UUID().uuidString
                #expect(try await push(telling).status == 200, "the push that reaches the device is still answered 200")
                let told = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: telling))
                #expect(told["outcome"] as? String == "dropped" && told["consoleState"] as? String == "discardedUnregistered")
                #expect((told["detail"] as? String)?.contains("which told APNs") == true, "\(told)")
                let toldAt = Int64((harness.clock.now.timeIntervalSince1970 * 1000).rounded())

                harness.clock.advance(by: 30)
                let gone = try await push(UUID().uuidString)
                #expect(gone.status == 410 && gone.reason == "Unregistered")
                #expect(gone.bodyText.contains(#""timestamp":\#(toldAt)"#), "the 410's time is when the device told APNs: \(gone.bodyText)")
            }
        }
    }
}
