import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import APNSimStore
import APNSimTestSupport
import Foundation
import NIOEmbedded
import Testing

/// The one owner of apps, tokens and devices, driven with plain values and a fixed time: no socket (a device's link
/// is an `EmbeddedChannel` nothing reads), no clock, delivery IDs given by the test.
@Suite("Device registry", .endToEnd)
struct DeviceRegistryTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = DeviceToken(String(repeating: "cd", count: 32))!
    static let app = DeviceLinkMessage.Registered(bundleID: "com.example.app", environment: .development, token: token)

    static func session(_ id: String = "d1") -> DeviceSession {
        DeviceSession(descriptor: DeviceDescriptor(id: id, name: id), channel: EmbeddedChannel())
    }

    static func plan(_ token: DeviceToken = token, expiration: PushPlan.Expiration = .storeByDefault) -> PushPlan {
        PushPlan(apnsID: nil, token: token, topic: "com.example.app", bundleID: "com.example.app", pushType: .alert, priority: 10,
                 expiration: expiration, collapseID: nil, payloadLimit: 4096)
    }

    /// What the actions say, as short words: `accepted:ID`, `held:ID`, `stored:ID`, `released:ID`, `OUTCOME:ID`,
    /// `registered`, `unregistered`, `send:ID`, `changed`, `handedOff:ID>REPLICA`, `linked:REPLICA`, `unlinked:REPLICA`,
    /// `claimed>REPLICA`.
    static func words(_ actions: DeviceRegistry.Actions?) -> [String] {
        guard let actions else { return ["no such device"] }
        var words: [String] = actions.persist.compactMap { event -> String? in
            switch event {
            case .accepted(let record): record.outcome.map { "\($0.rawValue):\(record.id)" } ?? "accepted:\(record.id)"
            case .held(let held): "\(held.slot == nil ? "held" : "stored"):\(held.id)"
            case .released(let id): "released:\(id)"
            case .receipt(let id, let outcome, _, _, _, _, _, _): "\(outcome.rawValue):\(id)"
            case .registered: "registered"
            case .forgotten(let id, _, _): "forgotten:\(id)"
            case .unregistered: "unregistered"
            case .acknowledged, .releasedAll: "other"
            case .stored: nil  // why it was stored; `held` words say that it was
            case .handedOff(let handOff): "handedOff:\(handOff.delivery.id)>\(handOff.replica)"
            case .handOffDone(let row): "done:\(row)"
            case .linked(_, let replica, _): "linked:\(replica)"
            case .unlinked(_, let replica): "unlinked:\(replica)"
            case .storedClaimed(_, let replica): "claimed>\(replica)"
            case .channelCreated(let channel): "channel:\(channel.id)"
            case .channelDeleted(let id): "unchannel:\(id)"
            case .broadcastShared(let shared): "shared:\(shared.apnsID)"
            }
        }
        for (_, message) in actions.send {
            if case .push(let delivery) = message { words.append("send:\(delivery.id)") }
            if case .startActivity(let start) = message { words.append("start:\(start.activity.id)") }
        }
        if actions.devicesChanged { words.append("changed") }
        return words
    }

    /// A registry with device d1 online and com.example.app registered on it.
    static func withDevice() -> (DeviceRegistry, DeviceSession) {
        var registry = DeviceRegistry(world: World())
        let session = session()
        _ = registry.attach(session, now: now)
        _ = registry.register(app, device: "d1", team: "TEAM000001")
        return (registry, session)
    }

    @Test("A registration puts the token where the validator reads it and the router routes it, in one event")
    func registration() {
        let (registry, _) = Self.withDevice()
        #expect(registry.tokens[Self.token]?.state == .active)
        #expect(registry.tokens[Self.token]?.bundleID == "com.example.app")
        #expect(registry.world.apps["com.example.app"]?.team == "TEAM000001", "an app the world did not know, of the device's team")
        #expect(registry.destination(of: Self.token) == .device("d1"))
    }

    static let activityToken = DeviceToken(String(repeating: "ef", count: 80))!

    @Test("An activity's token is the app's, routed to its device; receipts keep its state; removing the app takes it along")
    func activity() {
        var (registry, _) = Self.withDevice()
        let activity = LiveActivity(id: "A1", bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                                    contentState: ["status": .string("packed")], startedAt: Self.now, pushToken: Self.activityToken)
        #expect(Self.words(registry.startActivity(activity, environment: .development, device: "d1")) == ["start:A1", "changed"])
        #expect(registry.tokens[Self.activityToken]?.bundleID == "com.example.app")
        #expect(registry.tokens[Self.activityToken]?.environment == .development)
        #expect(registry.destination(of: Self.activityToken) == .device("d1"))

        var updated = activity
        updated.contentState = ["status": .string("on the way")]
        _ = registry.receipt(ReceivedReceipt(id: "p1", outcome: .liveactivity, activity: updated), device: "d1", at: Self.now)
        #expect(registry.devices["d1"]?.activities["A1"]?.contentState["status"] == .string("on the way"))
        var stranger = activity
        stranger.id = "not-started-here"
        _ = registry.receipt(ReceivedReceipt(id: "p2", outcome: .liveactivity, activity: stranger), device: "d1", at: Self.now)
        #expect(registry.devices["d1"]?.activities["not-started-here"] == nil, "a receipt updates activities, it does not start them")

        registry.resetWorld()
        #expect(registry.tokens[Self.activityToken]?.state == .active, "a reset keeps running activities' tokens")
        _ = registry.unregister(Self.token, device: "d1", at: Self.now + 5)
        #expect(registry.devices["d1"]?.activities.isEmpty == true)
        #expect(registry.tokens[Self.activityToken]?.state == .unregistered)
        #expect(registry.tokens[Self.activityToken]?.invalidSince == Self.now + 5)
        if case .removed = registry.destination(of: Self.activityToken) {} else { Issue.record("the activity's token still routes") }
    }

    @Test("An app's push-to-start tokens are its own, routed to its device, and go with it when it is removed")
    func pushToStartTokens() {
        var registry = DeviceRegistry(world: World())
        _ = registry.attach(Self.session(), now: Self.now)
        var app = Self.app
        app.pushToStartTokens = ["DeliveryAttributes": Self.activityToken]
        _ = registry.register(app, device: "d1", team: "TEAM000001")
        #expect(registry.tokens[Self.activityToken]?.bundleID == "com.example.app")
        #expect(registry.destination(of: Self.activityToken) == .device("d1"))
        registry.resetWorld()
        #expect(registry.tokens[Self.activityToken]?.state == .active, "a reset keeps a registered app's push-to-start tokens")
        _ = registry.unregister(Self.token, device: "d1", at: Self.now + 5)
        #expect(registry.tokens[Self.activityToken]?.state == .unregistered)
    }

    @Test("An online device: the push is recorded, held until acknowledged, and sent on its link")
    func online() {
        var (registry, _) = Self.withDevice()
        let routed = registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Self.now)
        #expect(Self.words(routed) == ["accepted:p1", "held:p1", "send:p1"])
        #expect(Self.words(registry.acknowledged(.init(id: "p1", pending: true), at: Self.now)) == ["other"],
                "a pending ack is recorded; the push stays held until its receipt")
        let receipt = ReceivedReceipt(id: "p1", outcome: .displayed, badge: .init(bundleID: "com.example.app", count: 3))
        #expect(Self.words(registry.receipt(receipt, device: "d1", at: Self.now)) == ["displayed:p1", "released:p1", "changed"])
        #expect(registry.devices["d1"]?.badges["com.example.app"] == 3)
    }

    @Test("A push the device answered and forgot: its record gets the sentence unless it has an outcome, and it is no longer held")
    func forgotten() {
        var (registry, _) = Self.withDevice()
        _ = registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Self.now)
        #expect(Self.words(registry.acknowledged(.init(id: "p1", forgotten: true), at: Self.now)) == ["other", "forgotten:p1", "released:p1"])
    }

    @Test("The uninstall window: the token answers 410 from the removal, and a push accepted meanwhile is recorded dropped")
    func uninstallWindow() throws {
        var (registry, _) = Self.withDevice()
        let removal = Self.now.addingTimeInterval(60)  // the gateway's uninstall delay after the device said so
        #expect(Self.words(registry.unregister(Self.token, device: "d1", at: removal)) == ["unregistered", "changed"])
        #expect(registry.tokens[Self.token]?.state == .unregistered)
        #expect(registry.tokens[Self.token]?.invalidSince == removal)
        let routed = registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Self.now)
        #expect(Self.words(routed) == ["dropped:p1"], "one write: the record complete")
        guard case .accepted(let record) = routed.persist.first else { return }
        #expect(record.device == "d1")
        #expect(try #require(record.detail).contains("com.example.app was removed from device d1"))
    }

    @Test("A world-file token no device owns is accepted and goes nowhere, with no record and no delivery ID")
    func worldFileToken() {
        var registry = DeviceRegistry(world: World())
        #expect(registry.destination(of: Self.token) == .none)
        let routed = registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { Issue.record("no ID is made"); return "" },
                                    now: Self.now)
        #expect(Self.words(routed) == [])
    }

    @Test("Offline: pushes are stored one per app, expiration 0 is dropped, and coming back sends what waits")
    func offline() {
        var (registry, _) = Self.withDevice()
        #expect(Self.words(registry.setOffline("d1", true, now: Self.now)) == ["changed"])
        #expect(Self.words(registry.setOffline("nobody", true, now: Self.now)) == ["no such device"])
        #expect(Self.words(registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Self.now))
                == ["accepted:p1", "stored:p1"])
        #expect(Self.words(registry.route(Self.plan(), apnsID: "A2", payload: "{}", newID: { "p2" }, now: Self.now))
                == ["accepted:p2", "stored:p2", "dropped:p1"], "APNs keeps one per app")
        #expect(Self.words(registry.route(Self.plan(expiration: .once), apnsID: "A3", payload: "{}", newID: { "p3" }, now: Self.now))
                == ["accepted:p3", "dropped:p3"])
        let back = Self.words(registry.setOffline("d1", false, now: Self.now))
        #expect(back.contains("send:p2") && !back.contains("send:p1"))
        #expect(back.last == "changed")
    }

    @Test("A link that ended after a newer one replaced it leaves the device online")
    func staleDetach() {
        var (registry, old) = Self.withDevice()
        let newer = Self.session()
        _ = registry.attach(newer, now: Self.now)
        _ = registry.detach(old)
        #expect(registry.devices["d1"]?.session?.isSameLink == newer.isSameLink)
        _ = registry.detach(newer)
        #expect(registry.devices["d1"]?.session == nil)
        #expect(registry.link(of: "d1") == nil)
    }

    @Test("Reset: the world as loaded, devices keep their tokens, held pushes are released")
    func reset() {
        var loaded = World()
        loaded.apps["com.example.loaded"] = .init(bundleID: "com.example.loaded", team: "TEAM000001")
        var registry = DeviceRegistry(world: loaded)
        _ = registry.attach(Self.session(), now: Self.now)
        _ = registry.register(Self.app, device: "d1", team: "TEAM000001")
        _ = registry.changeWorld { $0.apps["com.example.added"] = .init(bundleID: "com.example.added", team: "TEAM000001") }
        _ = registry.route(Self.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Self.now)
        let reset = registry.reset()
        #expect(reset.persist.contains { if case .releasedAll = $0 { true } else { false } })
        #expect(registry.world.apps["com.example.added"] == nil)
        #expect(registry.world.apps["com.example.loaded"] != nil)
        #expect(registry.tokens[Self.token]?.state == .active, "the device still holds its token")
        #expect(Self.words(registry.acknowledged(.init(id: "p1"), at: Self.now)) == ["other"], "nothing held any more")
    }

    @Test("Restore: registrations come back as tokens (a removed app's answering 410) and owners, held pushes as held")
    func restore() {
        var registry = DeviceRegistry(world: World())
        let device = DeviceDescriptor(id: "d1", name: "d1")
        let removed = DeviceToken(String(repeating: "ef", count: 32))!
        let delivery = DeviceLinkMessage.Delivery(id: "p1", apnsID: "A1", token: Self.token, bundleID: "com.example.app",
                                                  pushType: .alert, priority: 10, collapseID: nil, payload: "{}")
        registry.restore(RestartState(registrations: [
            DeviceRegistration(token: Self.token, device: device, bundleID: "com.example.app", environment: .development),
            DeviceRegistration(token: removed, device: device, bundleID: "com.example.old", environment: .development,
                               unregisteredFrom: Self.now),
        ], held: [HeldPush(id: "p1", device: "d1", slot: nil, expires: nil, delivery: delivery)]))
        #expect(registry.tokens[Self.token]?.state == .active)
        #expect(registry.tokens[removed]?.state == .unregistered)
        #expect(registry.destination(of: Self.token) == .device("d1"))
        guard case .removed(let former) = registry.destination(of: removed) else {
            Issue.record("the removed app's token remembers where it was")
            return
        }
        #expect(former.bundleID == "com.example.old")
        #expect(Self.words(registry.attach(Self.session(), now: Self.now)) == ["send:p1", "changed"],
                "the device gets the push it had not acknowledged")
    }

    @Test("A broadcast's shares are carried on links spread over the gateway's event loops, not on whichever device sorts first")
    func carriersSpread() {
        var registry = DeviceRegistry(world: World())
        let channel = BroadcastChannel(id: "Y2g=", bundleID: "com.example.app", environment: .development, storagePolicy: .noStorage,
                                       createdAt: Self.now)
        #expect(registry.createChannel(channel) == nil)
        let loops = [EmbeddedEventLoop(), EmbeddedEventLoop()]
        func name(_ index: Int) -> String { String(format: "d%03d", index) }
        for index in 0..<200 {  // d000 on the first loop, d001 on the second, and so on
            let id = name(index)
            let link = EmbeddedChannel(handler: nil, loop: loops[index % 2])
            _ = registry.attach(DeviceSession(descriptor: DeviceDescriptor(id: id, name: id), host: "H", channel: link), now: Self.now)
            let token = DeviceToken(String(format: "%064x", index + 1))!
            _ = registry.register(.init(bundleID: "com.example.app", environment: .development, token: token), device: id, team: "TEAM000001")
            _ = registry.startActivity(LiveActivity(id: "act-\(id)", bundleID: "com.example.app", attributesType: "T", attributes: [:],
                                                    contentState: [:], startedAt: Self.now, channelID: channel.id),
                                       environment: .development, device: id)
        }
        let plan = BroadcastPlan(channel: channel, apnsID: "A-1", priority: 10, expiration: .once)
        let shares = registry.beginBroadcast(plan, apnsID: "A-1", payload: "{}", now: Self.now)
        #expect(shares.map(\.count) == [100, 100])
        // Both shares would start with a device of the first loop (d000, d100); the second is carried by d101 instead.
        let carriers = shares.map { $0.first?.device ?? "" }
        #expect(carriers == ["d000", "d101"])
        let expected = Set((100..<200).map(name))
        #expect(Set(shares[1].map(\.device)) == expected, "the same devices")
    }

    @Test("A broadcast to several devices of one process goes on one of their links (carry); if that link ends first, each unanswered push goes on its own device's link")
    func carriedBroadcast() {
        var registry = DeviceRegistry(world: World())
        let channel = BroadcastChannel(id: "Y2g=", bundleID: "com.example.app", environment: .development, storagePolicy: .noStorage,
                                       createdAt: Self.now)
        #expect(registry.createChannel(channel) == nil)
        var sessions: [String: DeviceSession] = [:]
        for (index, id) in ["d1", "d2", "d3", "d4"].enumerated() {
            let session = DeviceSession(descriptor: DeviceDescriptor(id: id, name: id), host: id == "d4" ? nil : "H", channel: EmbeddedChannel())
            sessions[id] = session
            _ = registry.attach(session, now: Self.now)
            let token = DeviceToken(String(repeating: "0\(index + 1)", count: 32))!
            _ = registry.register(.init(bundleID: "com.example.app", environment: .development, token: token), device: id, team: "TEAM000001")
            _ = registry.startActivity(LiveActivity(id: "act-\(id)", bundleID: "com.example.app", attributesType: "T", attributes: [:],
                                                    contentState: [:], startedAt: Self.now, channelID: channel.id),
                                       environment: .development, device: id)
        }
        var ids = 0
        let plan = BroadcastPlan(channel: channel, apnsID: "A-1", priority: 10, expiration: .once)
        let payload = #"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#
        let shares = registry.beginBroadcast(plan, apnsID: "A-1", payload: payload, now: Self.now)
        #expect(shares.map { $0.map(\.device) } == [["d4"], ["d1", "d2", "d3"]], "a share per process, devices without one apart")
        let sent = shares.flatMap { share in
            registry.broadcast(plan, to: share, apnsID: "A-1", payload: payload, newID: { ids += 1; return "P\(ids)" }, now: Self.now).send
        }.map { session, message -> String in
            switch message {
            case .carry(let carry): "carry on \(session.descriptor.id): " + carry.pushes.map { "\($0.device)=\($0.body.id)" }.joined(separator: " ")
            case .push(let push): "push on \(session.descriptor.id): \(push.id)"
            default: message.type
            }
        }
        #expect(sent == ["push on d4: P1", "carry on d1: d1=P2 d2=P3 d3=P4"], "\(sent)")

        // d2 answers; then d1's link ends: d3's push goes to d3 on its own link, d2's (answered) and d1's own do not.
        _ = registry.receipt(ReceivedReceipt(id: "P3", outcome: .liveactivity), device: "d2", at: Self.now)
        let detached = registry.detach(sessions["d1"]!)
        #expect(Self.words(detached) == ["send:P4", "changed"])
        #expect(detached.send.first?.session.descriptor.id == "d3")
        #expect(Self.words(registry.detach(sessions["d3"]!)) == ["changed"], "no longer carried: d3's own arrival sends it")
    }
}
