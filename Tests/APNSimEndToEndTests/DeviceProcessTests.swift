import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The send-to-display path with `apnsim device` as its own process, as users run it.
@Suite("Device processes", .endToEnd)
struct DeviceProcessTests {
    /// The device list once `check` holds for it, asked again each time the gateway says the devices changed.
    static func devices(_ control: ControlClient, until check: @escaping @Sendable ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        try await control.devices(until: check)
    }

    static func token(_ devices: [[String: Any]], of id: String) -> String? {
        let device = devices.first { $0["id"] as? String == id }
        return ((device?["apps"] as? [[String: Any]])?.first?["token"] as? String)
    }

    @Test("A device process registers, displays a push, and after a restart gets what was stored for it")
    func processLifecycle() async throws {
        try await withGateway { harness in
            let control = harness.control
            let data = temporaryDirectory()
            let first = try await DeviceProcess.start(harness, id: "proc-1", data: data)
            let online = try await Self.devices(control) { Self.token($0, of: "proc-1") != nil && $0.first?["online"] as? Bool == true }
            let hex = try #require(Self.token(online, of: "proc-1"))
            let token = try #require(DeviceToken(hex))

            let shown = UUID().uuidString
            #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"to a process"}}"#,
                                                       apnsID: shown).status == 200)
            #expect(try await DeviceDeliveryTests.delivery(control, apnsID: shown)?["outcome"] as? String == "displayed")

            await first.process.stop()
            _ = try await Self.devices(control) { $0.first?["online"] as? Bool == false }
            let stored = UUID().uuidString
            #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"while stopped"}}"#,
                                                       apnsID: stored).status == 200)

            let second = try await DeviceProcess.start(harness, id: "proc-1", data: data)
            defer { second.stop() }
            let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: stored))
            #expect(record["outcome"] as? String == "displayed")
            #expect(record["token"] as? String == token.hex, "the same token after a restart with the same data folder")
        }
    }

    @Test("A device process stopped and started with no --data keeps its tokens, so what was held for it is displayed",
          arguments: [1, 3])
    func identityKeptByDefault(count: Int) async throws {
        try await withGateway { harness in
            let control = harness.control
            let home = temporaryDirectory()
            let ids = count == 1 ? ["kept"] : (1...count).map { "kept-\($0)" }
            let options = count == 1 ? [] : ["--count", String(count)]
            let first = try await DeviceProcess.start(harness, id: "kept", data: nil, extra: options, environment: ["APNSIM_HOME": home])
            let before = try await Self.devices(control) { devices in ids.allSatisfy { Self.token(devices, of: $0) != nil } }
            let tokens = ids.compactMap { Self.token(before, of: $0) }
            #expect(Set(tokens).count == count)
            _ = try await first.process.waitForOutput("its identity (and so its tokens) kept in \(home)/devices/kept")

            await first.process.stop()
            _ = try await Self.devices(control) { devices in devices.allSatisfy { $0["online"] as? Bool == false } }
            var held: [String: String] = [:]
            for hex in tokens {
                let apnsID = UUID().uuidString
                #expect(try await DeviceDeliveryTests.push(harness, token: try #require(DeviceToken(hex)),
                                                           payload: #"{"aps":{"alert":"while stopped"}}"#, apnsID: apnsID).status == 200)
                held[apnsID] = hex
            }

            let second = try await DeviceProcess.start(harness, id: "kept", data: nil, extra: options, environment: ["APNSIM_HOME": home])
            defer { second.stop() }
            for (apnsID, hex) in held {
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed", "\(record)")
                #expect(record["token"] as? String == hex)
            }
            let after = try await Self.devices(control) { devices in ids.allSatisfy { Self.token(devices, of: $0) != nil } }
            #expect(ids.compactMap { Self.token(after, of: $0) } == tokens, "the same tokens after the restart")
        }
    }

    @Test("A device process started with --ephemeral is a new device each time: new tokens, nothing kept")
    func ephemeralIdentity() async throws {
        try await withGateway { harness in
            let control = harness.control
            let home = temporaryDirectory()
            let first = try await DeviceProcess.start(harness, id: "fresh", data: nil, extra: ["--ephemeral"], environment: ["APNSIM_HOME": home])
            let before = try #require(Self.token(try await Self.devices(control) { Self.token($0, of: "fresh") != nil }, of: "fresh"))
            _ = try await first.process.waitForOutput("a new identity (--ephemeral)")
            await first.process.stop()
            _ = try await Self.devices(control) { $0.first?["online"] as? Bool == false }
            let second = try await DeviceProcess.start(harness, id: "fresh", data: nil, extra: ["--ephemeral"], environment: ["APNSIM_HOME": home])
            defer { second.stop() }
            let after = try await Self.devices(control) { devices in
                devices.contains { $0["id"] as? String == "fresh" && $0["online"] as? Bool == true } && Self.token(devices, of: "fresh") != before
            }
            #expect(Self.token(after, of: "fresh") != before)
            #expect(!FileManager.default.fileExists(atPath: home + "/devices"), "an ephemeral device writes nothing in APNSIM_HOME")
        }
    }

    @Test("A device process that dies before answering a push gets it again and shows it once")
    func processLostAck() async throws {
        try await withGateway { harness in
            let control = harness.control
            let device = try await DeviceProcess.start(harness, id: "proc-2", data: temporaryDirectory(),
                                                 extra: ["--drop-link-before-ack", "1"])
            defer { device.stop() }
            let online = try await Self.devices(control) { Self.token($0, of: "proc-2") != nil }
            let hex = try #require(Self.token(online, of: "proc-2"))
            let token = try #require(DeviceToken(hex))
            let apnsID = UUID().uuidString
            #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"once"}}"#,
                                                       apnsID: apnsID).status == 200)
            let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
            #expect(record["outcome"] as? String == "displayed")
            let all = try #require(try await control.get("/v1/deliveries?token=\(token.hex)").json as? [[String: Any]])
            #expect(all.count == 1)
        }
    }
}

@Suite("Device processes: every path", .endToEnd)
struct DeviceProcessPathTests {
    @Test("Each push type takes its path in an apnsim device process", arguments: [
        ("alert", "com.example.app", #"{"aps":{"alert":{"title":"T","body":"B"}}}"#, "displayed"),
        ("background", "com.example.app", #"{"aps":{"content-available":1}}"#, "background"),
        ("voip", "com.example.app.voip", #"{"aps":{},"caller":"Ada"}"#, "voip"),
        ("liveactivity", "com.example.app.push-type.liveactivity", #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#, "liveactivity"),
    ])
    func path(_ pushType: String, _ topic: String, _ payload: String, _ outcome: String) async throws {
        try await withGateway { harness in
            let control = harness.control
            let device = try await DeviceProcess.start(harness, id: "path-\(pushType)", data: temporaryDirectory())
            defer { device.stop() }
            let online = try await DeviceProcessTests.devices(control) { DeviceProcessTests.token($0, of: "path-\(pushType)") != nil }
            let token = try #require(DeviceProcessTests.token(online, of: "path-\(pushType)"))
            let apnsID = UUID().uuidString
            let client = try await harness.connect()
            let priority = pushType == "background" ? "5" : "10"
            let response = try await client.send(.push(token: token, payload: payload, headers: harness.headers(
                jwt: harness.jwt(), topic: topic, pushType: pushType, extra: [("apns-id", apnsID), ("apns-priority", priority)])))
            await client.close()
            #expect(response.status == 200, "\(response.bodyText)")
            let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
            #expect(record["outcome"] as? String == outcome)
        }
    }
}

@Suite("Device processes: the notification list", .endToEnd)
struct DeviceProcessListTests {
    static func send(_ harness: GatewayHarness, token: String, payload: String, collapseID: String? = nil) async throws -> String {
        let apnsID = UUID().uuidString
        var extra: [(name: String, value: String)] = [("apns-id", apnsID)]
        if let collapseID { extra.append(("apns-collapse-id", collapseID)) }
        let client = try await harness.connect()
        let response = try await client.send(.push(token: token, payload: payload, headers: harness.headers(jwt: harness.jwt(), extra: extra)))
        await client.close()
        #expect(response.status == 200)
        return apnsID
    }

    @Test("In a device process: collapse-id replaces, and mutable content passes through unchanged")
    func collapseAndMutableContent() async throws {
        try await withGateway { harness in
            let control = harness.control
            let device = try await DeviceProcess.start(harness, id: "list-1", data: temporaryDirectory())
            defer { device.stop() }
            let online = try await DeviceProcessTests.devices(control) { DeviceProcessTests.token($0, of: "list-1") != nil }
            let token = try #require(DeviceProcessTests.token(online, of: "list-1"))
            let first = try await Self.send(harness, token: token, payload: #"{"aps":{"alert":"1-0"}}"#, collapseID: "score")
            _ = try await DeviceDeliveryTests.delivery(control, apnsID: first)
            let second = try await Self.send(harness, token: token, payload: #"{"aps":{"alert":"2-0","mutable-content":1}}"#,
                                             collapseID: "score")
            let shown = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: second))
            #expect(shown["outcome"] as? String == "displayed")
            #expect((shown["content"] as? [String: Any])?["body"] as? String == "2-0")
            let replaced = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: first))
            #expect(replaced["outcome"] as? String == "replaced")
        }
    }

    @Test("In a device process: an app in the foreground whose willPresent allows nothing shows nothing")
    func foregroundSuppressed() async throws {
        try await withGateway { harness in
            let control = harness.control
            let device = try await DeviceProcess.start(harness, id: "list-2", data: temporaryDirectory(),
                                                 extra: ["--foreground", "com.example.app"])
            defer { device.stop() }
            let online = try await DeviceProcessTests.devices(control) { DeviceProcessTests.token($0, of: "list-2") != nil }
            let token = try #require(DeviceProcessTests.token(online, of: "list-2"))
            let apnsID = try await Self.send(harness, token: token, payload: #"{"aps":{"alert":"hidden"}}"#)
            let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
            #expect(record["outcome"] as? String == "suppressed")
        }
    }
}
