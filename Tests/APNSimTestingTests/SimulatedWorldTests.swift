import APNSimGateway
import APNSimProvider
import APNSimScenario
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// APNSimTesting as a team's test suite uses it: a world per test, a provider client pointed at it by the
/// settings it hands out, and assertions on typed records.
@Suite("APNSimTesting: a simulated world in a Swift test", .endToEnd)
struct SimulatedWorldTests {
    /// A provider client configured from the world's settings, as a team configures its own.
    static func connect(_ world: SimulatedWorld) async throws -> (ProviderClient, bearer: String) {
        let settings = world.provider
        var configuration = ProviderClient.Configuration(host: settings.host, port: settings.port(.development), caFile: settings.caFile)
        configuration.serverHostname = settings.serverName
        let signer = try ProviderTokenSigner(p8: try settings.p8(), keyID: settings.keyID, teamID: settings.teamID)
        return (try await ProviderClient.connect(configuration), "bearer \(signer.token(issuedAt: Date()))")
    }

    static func send(_ world: SimulatedWorld, _ payload: String, to token: String) async throws -> ProviderResponse {
        let (client, bearer) = try await connect(world)
        defer { Task { await client.close() } }
        return try await client.send(.push(token: token, payload: payload, headers: [
            ("authorization", bearer), ("apns-topic", world.provider.topic), ("apns-push-type", "alert"),
        ]))
    }

    @Test("A push sent with the world's provider settings is displayed, and the delivery record says so")
    func sendToDisplay() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let response = try await Self.send(world, #"{"aps":{"alert":{"title":"Order shipped","body":"Arrives Tuesday"},"badge":3}}"#, to: token)
            #expect(response.status == 200)
            let delivery = try await world.delivery(apnsID: try #require(response["apns-id"]))
            #expect(delivery.outcome == .displayed)
            #expect(delivery.device == "iphone-dev")
            #expect(delivery.content?.title == "Order shipped")
            #expect(delivery.content?.badge == 3)
            let sent = try #require(try await world.send(apnsID: delivery.apnsID))
            #expect(sent.status == 200 && sent.topic == "com.example.app")
        }
    }

    @Test("A Braze push tapped: world.tap returns what the app opened and Braze reported, and world.interactions lists it")
    func tap() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let response = try await Self.send(world, #"{"aps":{"alert":"Sale"},"ab":{"c":"Y2Ft"},"ab_uri":"shop://sale"}"#, to: token)
            let apnsID = try #require(response["apns-id"])
            #expect(try await world.delivery(apnsID: apnsID).outcome == .displayed)
            let record = try await world.tap(device: "iphone-dev", apnsID: apnsID)
            #expect(record.opened == "shop://sale")
            #expect(record.event == VendorEvent(vendor: "Braze", name: "pushClick", ids: ["campaignId": "Y2Ft"]))
            #expect(try await world.interactions(InteractionFilter(device: "iphone-dev")).map(\.id) == [record.id])
            await #expect(throws: (any Error).self, "tapped, it is gone") { try await world.dismiss(device: "iphone-dev", apnsID: apnsID) }
        }
    }

    @Test("world.setFocus and world.setSummary hold pushes for the summary; world.deliverSummary returns them highest relevance-score first")
    func summary() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            try world.setFocus(Focus(name: "Work"), device: "iphone-dev")
            try world.setSummary(ScheduledSummary(times: ["08:00"]), device: "iphone-dev")
            #expect(throws: (any Error).self, "a time that is not HH:mm") { try world.setSummary(ScheduledSummary(times: ["8"]), device: "iphone-dev") }
            var sent: [String] = []
            for score in [0.1, 0.7] {
                let response = try await Self.send(world, #"{"aps":{"alert":"Digest","relevance-score":\#(score)}}"#, to: token)
                let apnsID = try #require(response["apns-id"])
                #expect(try await world.delivery(apnsID: apnsID).presentation?.summary != nil)
                sent.append(apnsID)
            }
            let summary = try await world.deliverSummary(device: "iphone-dev")
            #expect(summary.notifications.map(\.apnsID) == sent.reversed())
            #expect(try await world.summaries(device: "iphone-dev").map(\.id) == [summary.id])
            try world.setFocus(nil, device: "iphone-dev")
        }
    }

    /// With the gateway's own 10 s, a provider's handshake in a world of a busy test run could be cut off, and the
    /// test failed with "the connection closed before the request could be sent".
    @Test("A world waits for a slow provider handshake and a silent device link as long as its patience; nil keeps the gateway's own")
    func patience() async throws {
        try await SimulatedWorld.run { world in
            #expect(world.gateway.configuration.connection.handshakeTimeout == .seconds(600))
            #expect(world.gateway.configuration.heartbeatInterval == 200, "three silent intervals end a link: ten minutes")
        }
        var options = SimulatedWorld.Options()
        options.patience = nil
        try await SimulatedWorld.run(options: options) { world in
            #expect(world.gateway.configuration.connection.handshakeTimeout == .seconds(10))
            #expect(world.gateway.configuration.heartbeatInterval == 15)
        }
    }

    @Test("A Live Activity the app starts takes an update by its own token; the record and the world show what it did")
    func liveActivity() async throws {
        try await SimulatedWorld.run { world in
            let started = try world.startActivity(device: "iphone-dev", app: "com.example.app", type: "DeliveryAttributes",
                                                  attributes: ["orderID": .string("A-1")],
                                                  contentState: ["status": .string("packed"), "etaMinutes": .number(40)])
            let token = try #require(started.pushToken)
            let response = try await world.send(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"status":"on the way","etaMinutes":20}}}"#,
                                                 to: token.hex, topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity")
            #expect(response.status == 200)
            let delivery = try await world.delivery(apnsID: try #require(response["apns-id"]))
            #expect(delivery.activity?.result == .applied)
            #expect(delivery.activity?.before?["status"] == .string("packed"))
            #expect(world.activity(started.id)?.contentState["etaMinutes"] == .number(20))
            #expect(world.activities(device: "iphone-dev").map(\.id) == [started.id])
            #expect(throws: SimulatedWorldError.self) {
                try world.startActivity(device: "iphone-dev", app: "com.example.app", type: "ScoreAttributes", contentState: [:])
            }
        }
    }

    @Test("A scheduled Live Activity has no token until the world's clock passes its start")
    func scheduledActivity() async throws {
        try await SimulatedWorld.run { world in
            let start = Date().addingTimeInterval(world.clockOffset + 3600)
            let scheduled = try world.startActivity(device: "iphone-dev", app: "com.example.app", type: "DeliveryAttributes",
                                                    attributes: ["orderID": .string("S-1")],
                                                    contentState: ["status": .string("ordered"), "etaMinutes": .number(90)], start: start)
            #expect(scheduled.pushToken == nil)
            #expect(world.activities(device: "iphone-dev").isEmpty, "not started yet")
            world.advance(by: .seconds(3601))
            let started = try #require(world.activities(device: "iphone-dev").first { $0.id == scheduled.id })
            let token = try #require(started.pushToken, "its token comes with its start")
            let response = try await world.send(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"status":"packed","etaMinutes":40}}}"#,
                                                 to: token.hex, topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity")
            #expect(try await world.delivery(apnsID: try #require(response["apns-id"])).activity?.result == .applied)
        }
    }

    @Test("The sandbox's widget and control reload by push, and the record says which")
    func widgets() async throws {
        try await SimulatedWorld.run { world in
            let widgets = try await world.reload(device: "iphone-dev", app: "com.example.app")
            #expect(widgets.status == 200)
            let reloaded = try await world.delivery(apnsID: try #require(widgets["apns-id"]))
            #expect(reloaded.outcome == .widget)
            #expect(reloaded.widgets?.result == .reloaded && reloaded.widgets?.kinds == ["com.example.app.order-status"])
            let control = try await world.reload(device: "iphone-dev", app: "com.example.app", control: "com.example.app.reorder")
            #expect(try await world.delivery(apnsID: try #require(control["apns-id"])).widgets?.kinds == ["com.example.app.reorder"])
            #expect(throws: SimulatedWorldError.self) {
                try world.controlToken(device: "iphone-dev", app: "com.example.app", kind: "com.example.app.garage")
            }
        }
    }

    @Test("A Braze rich push downloads from the world's media server and is displayed with its image")
    func richPush() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let payload = #"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"\#(world.mediaURL)/media/sample.jpg","type":"jpg"}}}"#
            let response = try await Self.send(world, payload, to: token)
            let delivery = try await world.delivery(apnsID: try #require(response["apns-id"]))
            #expect(delivery.extensionRun?.kind == .braze)
            #expect(delivery.extensionRun?.outcome == .completed)
            #expect(delivery.content?.attachments.map(\.type) == ["public.jpeg"])
        }
    }

    @Test("An injected fault answers the next push, and the send record names it")
    func fault() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let added = try await world.inject(Fault(reason: "ServiceUnavailable"))
            #expect(added.map(\.id) == ["f1"])
            let refused = try await Self.send(world, #"{"aps":{"alert":"x"}}"#, to: token)
            #expect(refused.status == 503)
            #expect(try await world.send(apnsID: try #require(refused["apns-id"]))?.fault == "f1 reject ServiceUnavailable")
            #expect(try await Self.send(world, #"{"aps":{"alert":"x"}}"#, to: token).status == 200, "the fault is used up")
        }
    }

    @Test("A production certificate on the development port: the client is sent away, and world.connections says why")
    func refusedConnection() async throws {
        try await SimulatedWorld.run { world in
            var configuration = ProviderClient.Configuration(host: world.provider.host, port: world.provider.port(.development),
                                                             caFile: world.provider.caFile)
            configuration.serverHostname = world.provider.serverName
            configuration.clientCertificate = world.provider.certificate(.production)
            let client = try await ProviderClient.connect(configuration)
            let record = try #require(try await world.connections(ConnectionFilter(reason: "BadCertificateEnvironment"), count: 1).first)
            #expect(record.event == .goAway)
            #expect(record.explanation.contains("is for production and this port serves development"), "\(record.explanation)")
            await client.close()
        }
    }

    @Test("A world built in code: one iPad with the sandbox app; reset forgets the record, not the device")
    func worldInCode() async throws {
        var built = try WorldSource.sandbox.load()
        built.devices = [World.DeviceSpec(id: "ipad", name: "Test iPad", model: "iPad14,1",
                                          apps: [World.AppSpec(bundleID: "com.example.app", environment: .development)])]
        try await SimulatedWorld.run(.world(built)) { world in
            #expect(world.devices.map(\.descriptor.id) == ["ipad"])
            let token = try world.token(device: "ipad", app: "com.example.app")
            #expect(try await Self.send(world, #"{"aps":{"alert":"hello"}}"#, to: token).status == 200)
            #expect(try await world.deliveries(device: "ipad").count == 1)
            try await world.reset()
            #expect(try await world.sends().isEmpty)
            #expect(try world.token(device: "ipad", app: "com.example.app") == token)
            #expect(throws: SimulatedWorldError.self) { try world.token(device: "ipad", app: "com.other.app") }
        }
    }

    @Test("Advancing the world's clock ages a provider token made by the system's clock past its hour")
    func advance() async throws {
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            world.advance(by: .seconds(3700))
            #expect(world.clockOffset == 3700)
            let refused = try await Self.send(world, #"{"aps":{"alert":"late"}}"#, to: token)
            #expect(refused.status == 403)
            #expect(refused.reason == "ExpiredProviderToken")
        }
    }

    @Test("A scenario file replays from a test; a failing one says what was expected")
    func replay() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let passing = await ScenarioRunner.replay(root.appendingPathComponent("Scenarios/delivery/collapse-id.yaml").path)
        #expect(passing.passed, "\(passing.failureText)")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wrong-\(UUID().uuidString).yaml").path
        try "name: wrong\nworld: {extends: \(root.path)/Scenarios/sandbox.yaml}\nsteps:\n  - send: {device: iphone-dev, app: com.example.app}\n    expect: {status: 410}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let failing = await ScenarioRunner.replay(file)
        #expect(!failing.passed)
        #expect(failing.failureText.contains("status: expected 410, got 200"))
    }
}
