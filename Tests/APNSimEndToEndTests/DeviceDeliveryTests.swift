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

/// Provider → gateway → simulated device → delivery record, over real TLS on both legs.
@Suite("Delivery to devices", .endToEnd)
struct DeviceDeliveryTests {
    static func push(_ harness: GatewayHarness, token: DeviceToken, payload: String, apnsID: String,
                     extra: [(name: String, value: String)] = []) async throws -> ProviderResponse {
        let client = try await harness.connect()
        defer { Task { await client.close() } }
        return try await client.send(.push(token: token.hex, payload: payload,
                                           headers: harness.headers(jwt: harness.jwt(), extra: [("apns-id", apnsID)] + extra)))
    }

    /// The delivery record of `apnsID` once it is complete, waiting up to `wait` seconds (a long-poll).
    static func delivery(_ control: ControlClient, apnsID: String) async throws -> [String: Any]? {
        try await control.deliveries("apnsId=\(apnsID)").first
    }

    @Test("A device registers, an alert reaches it, and the delivery record shows what it displayed")
    func alertDisplayed() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                let devices = try #require(try await control.get("/v1/devices").json as? [[String: Any]])
                #expect(devices.first?["online"] as? Bool == true)
                #expect(((devices.first?["apps"] as? [[String: Any]])?.first?["token"] as? String) == token.hex)
                let tokens = try #require(try await control.get("/v1/tokens").json as? [[String: Any]])
                #expect(tokens.first { $0["token"] as? String == token.hex }?["device"] as? String == "device-1")
                #expect(tokens.contains { $0["token"] as? String == TestWorld.devToken && $0["device"] == nil },
                        "a world-file token has no device")

                let apnsID = UUID().uuidString
                let response = try await Self.push(harness, token: token, payload:
                    ##"{"aps":{"alert":{"title":"Order shipped","subtitle":"#42","body":"Arrives Tuesday"},"badge":1,"sound":"default","thread-id":"orders"},"orderID":42}"##,
                    apnsID: apnsID)
                #expect(response.status == 200)

                let record = try #require(try await Self.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed")
                #expect(record["device"] as? String == "device-1")
                #expect(record["token"] as? String == token.hex)
                let content = try #require(record["content"] as? [String: Any])
                #expect(content["title"] as? String == "Order shipped")
                #expect(content["subtitle"] as? String == "#42")
                #expect(content["body"] as? String == "Arrives Tuesday")
                #expect(content["badge"] as? Int == 1)
                #expect(content["threadID"] as? String == "orders")
                #expect((content["userInfo"] as? [String: Any])?["orderID"] as? Double == 42)
                #expect(record["deliveredAt"] != nil && record["displayedAt"] != nil)
                let presentation = try #require(record["presentation"] as? [String: Any], "the device says where it shows")
                #expect(presentation["bundleID"] as? String == "com.example.app")
                #expect(presentation["threadID"] as? String == "orders")
                #expect(presentation["thread"] as? String == "orders", "its old spelling, beside it for one release")
                #expect(presentation["banner"] as? Bool == true && presentation["list"] as? Bool == true)
                #expect(device.displayed.first?.content.title == "Order shipped")
            }
        }
    }

    @Test("Registering again keeps the token; a new installation gets a new one")
    func tokensAcrossRestarts() async throws {
        try await withGateway { harness in
            let data = temporaryDirectory()
            let first = try await withDevice(harness, dataDirectory: data) { $0.tokens["com.example.app"] }
            let again = try await withDevice(harness, dataDirectory: data) { $0.tokens["com.example.app"] }
            let reinstalled = try await withDevice(harness, dataDirectory: temporaryDirectory()) { $0.tokens["com.example.app"] }
            #expect(first != nil)
            #expect(first == again)
            #expect(first != reinstalled)
        }
    }

    @Test("An app iOS would refuse is not installed and gets no token")
    func refusedApp() async throws {
        try await withGateway { harness in
            var wildcard = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
            wildcard.profile.appID = "\(TestWorld.team).*"
            try await withDevice(harness, apps: [wildcard]) { device in
                #expect(device.tokens.isEmpty)
                #expect(device.refusals["com.example.app"]?.kind == .wildcardWithPush)
            }
        }
    }

    @Test("Offline: the newest push per app is kept and delivered on reconnect; expiration 0 is dropped")
    func storeAndForward() async throws {
        try await withGateway { harness in
            let data = temporaryDirectory()
            let control = harness.control
            let token = try #require(try await withDevice(harness, dataDirectory: data) { $0.tokens["com.example.app"] })
            // The link is closed when withDevice returns; the gateway notices when the connection ends.
            _ = try await control.devices { $0.first?["online"] as? Bool == false }

            let older = UUID().uuidString, newer = UUID().uuidString, once = UUID().uuidString
            #expect(try await Self.push(harness, token: token, payload: #"{"aps":{"alert":"older"}}"#, apnsID: older).status == 200)
            #expect(try await Self.push(harness, token: token, payload: #"{"aps":{"alert":"newer"}}"#, apnsID: newer).status == 200)
            #expect(try await Self.push(harness, token: token, payload: #"{"aps":{"alert":"now or never"}}"#, apnsID: once,
                                        extra: [("apns-expiration", "0")]).status == 200)

            try await withDevice(harness, dataDirectory: data) { device in
                let delivered = try #require(try await Self.delivery(control, apnsID: newer))
                #expect(delivered["outcome"] as? String == "displayed")
                #expect(device.displayed.map(\.content.body) == ["newer"])
            }
            let replaced = try #require(try await Self.delivery(control, apnsID: older))
            #expect(replaced["outcome"] as? String == "dropped")
            #expect((replaced["detail"] as? String)?.contains("newer push") == true)
            let dropped = try #require(try await Self.delivery(control, apnsID: once))
            #expect(dropped["outcome"] as? String == "dropped")
            #expect((dropped["detail"] as? String)?.contains("apns-expiration was 0") == true)
        }
    }
}

@Suite("Delivery to devices: paths and guarantees", .endToEnd)
struct DevicePathTests {
    @Test("Each push type takes its path on the device, and the record says which", arguments: [
        ("background", #"{"aps":{"content-available":1},"sync":"all"}"#, [("apns-priority", "5")], "background"),
        ("voip", #"{"aps":{},"caller":"Ada"}"#, [], "voip"),
        ("liveactivity", #"{"aps":{"timestamp":1,"event":"update","content-state":{"score":"2-1"}}}"#, [], "liveactivity"),
    ] as [(String, String, [(String, String)], String)])
    func paths(_ pushType: String, _ payload: String, _ extra: [(String, String)], _ outcome: String) async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let topic = ["voip": "com.example.app.voip", "liveactivity": "com.example.app.push-type.liveactivity"][pushType]
                    ?? "com.example.app"
                let apnsID = UUID().uuidString
                let client = try await harness.connect()
                let response = try await client.send(.push(token: token.hex, payload: payload, headers: harness.headers(
                    jwt: harness.jwt(), topic: topic, pushType: pushType,
                    extra: [("apns-id", apnsID)] + extra.map { (name: $0.0, value: $0.1) })))
                await client.close()
                #expect(response.status == 200, "\(response.bodyText)")
                let control = harness.control
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == outcome)
                #expect(device.displayed.isEmpty, "nothing is shown for a \(pushType) push")
            }
        }
    }

    @Test("A push with the collapse ID of a displayed one replaces it; the older record becomes replaced")
    func collapse() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                let first = UUID().uuidString, second = UUID().uuidString
                for (id, body) in [(first, "1-0"), (second, "2-0")] {
                    #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"\#(body)"}}"#,
                                                               apnsID: id, extra: [("apns-collapse-id", "score")]).status == 200)
                    _ = try await DeviceDeliveryTests.delivery(control, apnsID: id)
                }
                #expect(device.displayed.map(\.content.body) == ["2-0"])
                let older = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: first))
                #expect(older["outcome"] as? String == "replaced")
            }
        }
    }

    @Test("A device that dies before acknowledging a push gets it again on reconnect and shows it once")
    func lostAck() async throws {
        try await withGateway { harness in
            try await withDevice(harness, dropLinkBeforeAcknowledging: 1) { device in
                let token = try #require(device.tokens["com.example.app"])
                let apnsID = UUID().uuidString
                #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"exactly once"}}"#,
                                                           apnsID: apnsID).status == 200)
                let control = harness.control
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed")
                #expect(device.displayed.map(\.content.body) == ["exactly once"])
                let all = try #require(try await control.get("/v1/deliveries?token=\(token.hex)").json as? [[String: Any]])
                #expect(all.count == 1, "one delivery record, not one per attempt")
            }
        }
    }
}

@Suite("Delivery to devices: gateway restarts", .endToEnd)
struct GatewayRestartTests {
    @Test("With a store file, a restarted gateway keeps tokens and pending pushes, and delivers them on reconnect")
    func restartKeepsPendingPushes() async throws {
        let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: storePath) }
        let data = temporaryDirectory()
        let apnsID = UUID().uuidString

        // First run: the device registers and goes away; a push for it is stored.
        let token = try await withGateway(storePath: storePath) { harness in
            let token = try #require(try await withDevice(harness, dataDirectory: data) { $0.tokens["com.example.app"] })
            let control = harness.control
            _ = try await control.devices { $0.first?["online"] as? Bool == false }
            #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"kept across a restart"}}"#,
                                                       apnsID: apnsID).status == 200)
            return token
        }

        // Second run on the same file: the token is still known, and the stored push reaches the device.
        try await withGateway(storePath: storePath) { harness in
            let control = harness.control
            let devices = try #require(try await control.get("/v1/devices").json as? [[String: Any]])
            #expect(((devices.first?["apps"] as? [[String: Any]])?.first?["token"] as? String) == token.hex)
            try await withDevice(harness, dataDirectory: data) { device in
                #expect(device.tokens["com.example.app"] == token)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed")
                #expect(device.displayed.map(\.content.body) == ["kept across a restart"])
            }
        }
    }
}

extension GatewayRestartTests {
    /// The removal is learned by the push that reaches the device (``UninstallDelay/untilDeviceTells``), and what was
    /// learned is kept: after the restart the token answers 410 with that push's time.
    @Test("With a store file, a token whose app was removed still answers 410 after a restart")
    func restartKeepsUnregisteredTokens() async throws {
        let storePath = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: storePath) }
        let token = try await withGateway(storePath: storePath) { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await control.delete("/v1/devices/device-1/apps/com.example.app").status == 200)
                let telling = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"x"}}"#,
                                                                 apnsID: UUID().uuidString)
                #expect(telling.status == 200, "the push that tells APNs is answered 200")
                return (token, Int64((harness.clock.now.timeIntervalSince1970 * 1000).rounded()))
            }
        }
        try await withGateway(storePath: storePath) { harness in
            let gone = try await DeviceDeliveryTests.push(harness, token: token.0, payload: #"{"aps":{"alert":"x"}}"#,
                                                          apnsID: UUID().uuidString)
            #expect(gone.status == 410)
            #expect(gone.reason == "Unregistered")
            #expect(gone.bodyText.contains(#""timestamp":\#(token.1)"#), "\(gone.bodyText)")
        }
    }
}

@Suite("Delivery to devices: expiry while offline", .endToEnd)
struct ExpiryTests {
    @Test("A stored push whose apns-expiration passes while the device is offline is dropped, not delivered")
    func expiredWhileOffline() async throws {
        try await withGateway { harness in
            let data = temporaryDirectory()
            let control = harness.control
            let token = try #require(try await withDevice(harness, dataDirectory: data) { $0.tokens["com.example.app"] })
            _ = try await DeviceProcessTests.devices(control) { $0.first?["online"] as? Bool == false }

            let expiring = UUID().uuidString
            let expiresAt = Int(harness.clock.now.timeIntervalSince1970) + 60
            #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"stale soon"}}"#,
                                                       apnsID: expiring, extra: [("apns-expiration", String(expiresAt))]).status == 200)
            harness.clock.advance(by: 120)

            try await withDevice(harness, dataDirectory: data) { device in
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: expiring))
                #expect(record["outcome"] as? String == "dropped")
                #expect((record["detail"] as? String)?.contains("apns-expiration passed") == true)
                #expect(device.displayed.isEmpty)
            }
        }
    }
}
