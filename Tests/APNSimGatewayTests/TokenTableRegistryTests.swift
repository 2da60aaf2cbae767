import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import APNSimStore
import Foundation
import Testing

/// The registry's one token table: each token's kind and holder, the holder's index of its tokens, what a reset and a
/// declaration keep. Plain values, as ``DeviceRegistryTests``.
@Suite("Token table in the registry")
struct TokenTableRegistryTests {
    typealias Fixture = DeviceRegistryTests
    static let startToken = DeviceToken(String(repeating: "a1", count: 32))!
    static let activityToken = DeviceToken(String(repeating: "b2", count: 32))!

    /// d1 online with com.example.app registered, a push-to-start token for `DeliveryAttributes`, and activity A1 started.
    static func withEveryKind() -> DeviceRegistry {
        var registry = DeviceRegistry(world: World())
        _ = registry.attach(Fixture.session(), now: Fixture.now)
        var app = Fixture.app
        app.pushToStartTokens = ["DeliveryAttributes": startToken]
        _ = registry.register(app, device: "d1", team: "TEAM000001")
        let activity = LiveActivity(id: "A1", bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                                    contentState: [:], startedAt: Fixture.now, pushToken: activityToken)
        _ = registry.startActivity(activity, environment: .development, device: "d1")
        return registry
    }

    @Test("Each token a device holds is one entry saying what it is and who holds it; the declared world holds none of them")
    func kinds() {
        let registry = Self.withEveryKind()
        #expect(registry.tokens[Fixture.token]?.kind == .device)
        #expect(registry.tokens[Self.startToken]?.kind == .pushToStart(activityType: "DeliveryAttributes"))
        #expect(registry.tokens[Self.activityToken]?.kind == .activity(id: "A1"))
        for token in [Fixture.token, Self.startToken, Self.activityToken] {
            #expect(registry.tokens[token]?.holder == .device("d1"))
            #expect(registry.validated.tokens[token] != nil, "the validator reads it")
        }
        #expect(registry.world.tokens.isEmpty, "the world holds only what was declared")
        #expect(registry.devices["d1"]?.tokens == [Fixture.token, Self.startToken, Self.activityToken])
        let app = registry.registration(of: "d1", bundleID: "com.example.app")
        #expect(app?.token == Fixture.token)
        #expect(app?.pushToStartTokens == ["DeliveryAttributes": Self.startToken])
    }

    @Test("A token another device registers moves to it; the first device's removal then leaves it where it is")
    func tokenMoves() {
        var registry = DeviceRegistry(world: World())
        _ = registry.attach(Fixture.session("d1"), now: Fixture.now)
        _ = registry.attach(Fixture.session("d2"), now: Fixture.now)
        _ = registry.register(Fixture.app, device: "d1", team: "TEAM000001")
        _ = registry.register(Fixture.app, device: "d2", team: "TEAM000001")
        #expect(registry.destination(of: Fixture.token) == .device("d2"))
        #expect(registry.devices["d1"]?.tokens.isEmpty == true)
        #expect(registry.registration(of: "d1", bundleID: "com.example.app") == nil)
        #expect(Fixture.words(registry.unregister(Fixture.token, device: "d1", at: Fixture.now)).isEmpty, "d1 holds nothing to remove")
        #expect(registry.tokens[Fixture.token]?.state == .active)
        #expect(registry.destination(of: Fixture.token) == .device("d2"))
    }

    @Test("Removing the app retires its own, push-to-start and activity tokens together, each naming where it was")
    func removal() {
        var registry = Self.withEveryKind()
        #expect(Fixture.words(registry.unregister(Fixture.token, device: "d1", at: Fixture.now + 5)) == ["unregistered", "changed"])
        for token in [Fixture.token, Self.startToken, Self.activityToken] {
            #expect(registry.tokens[token]?.state == .unregistered)
            #expect(registry.tokens[token]?.invalidSince == Fixture.now + 5)
            #expect(registry.tokens[token]?.holder == .removed(from: "d1", at: Fixture.now + 5))
        }
        #expect(registry.devices["d1"]?.tokens.isEmpty == true)
        #expect(registry.apps(of: "d1").isEmpty)
    }

    @Test("A reset brings back the declared tokens and the held ones, active; a removed app's token is forgotten")
    func reset() {
        let declared = DeviceToken(String(repeating: "c3", count: 32))!
        var loaded = World()
        loaded.tokens[declared] = .init(token: declared, bundleID: "com.example.app", environment: .production)
        var registry = DeviceRegistry(world: loaded)
        #expect(registry.tokens[declared]?.kind == .declared && registry.tokens[declared]?.holder == nil)
        #expect(registry.world.tokens.isEmpty, "moved into the table")
        _ = registry.attach(Fixture.session(), now: Fixture.now)
        _ = registry.register(Fixture.app, device: "d1", team: "TEAM000001")
        let other = DeviceLinkMessage.Registered(bundleID: "com.example.other", environment: .development,
                                                 token: DeviceToken(String(repeating: "d4", count: 32))!)
        _ = registry.register(other, device: "d1", team: "TEAM000001")
        _ = registry.unregister(other.token, device: "d1", at: Fixture.now)
        #expect(registry.declare(.records([.init(token: Fixture.token, bundleID: "com.example.app", environment: .development,
                                                 state: .expired)]), now: Fixture.now) == [])
        registry.resetWorld()
        #expect(registry.tokens[declared]?.kind == .declared)
        #expect(registry.tokens[Fixture.token]?.state == .active, "held, so active again")
        #expect(registry.tokens[Fixture.token]?.holder == .device("d1"))
        #expect(registry.tokens[other.token] == nil, "a removed app's token is not the world's")
        #expect(registry.tokens.count == 2)
    }

    @Test("Declaring a token a device holds changes its state and keeps its holder; one naming an unknown app changes nothing")
    func declare() {
        var (registry, _) = Fixture.withDevice()
        let expired = World.TokenRecord(token: Fixture.token, bundleID: "com.example.app", environment: .development, state: .expired)
        #expect(registry.declare(.records([expired]), now: Fixture.now) == [])
        #expect(registry.tokens[Fixture.token]?.state == .expired)
        #expect(registry.tokens[Fixture.token]?.invalidSince == Fixture.now, "invalid from when it was said, when no time is given")
        #expect(registry.tokens[Fixture.token]?.holder == .device("d1"))
        #expect(registry.tokens[Fixture.token]?.kind == .device)

        let fresh = DeviceToken(String(repeating: "e5", count: 32))!
        let problems = registry.declare(.records([.init(token: fresh, bundleID: "com.example.app", environment: .development),
                                                  .init(token: fresh, bundleID: "com.example.unknown", environment: .development)]),
                                        now: Fixture.now)
        #expect(problems == ["token \(fresh.short) names app com.example.unknown, which is not declared under apps"])
        #expect(registry.tokens[fresh] == nil, "nothing was added")
        #expect(registry.declare(.set(TokenSet(count: 3, seed: 1, bundleID: "com.example.app", environment: .development)),
                                 now: Fixture.now) == [])
        #expect(registry.tokens.count == 4)
        #expect(registry.world.tokenSets.count == 1)
    }

    @Test("GET /v1/tokens writes the kind and the holder of each token; a world file's reads back declared")
    func json() throws {
        let registry = Self.withEveryKind()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let start = String(decoding: try encoder.encode(registry.tokens[Self.startToken]), as: UTF8.self)
        #expect(start.contains(#""activityType":"DeliveryAttributes","bundleID":"com.example.app","device":"d1""#), "\(start)")
        #expect(start.contains(#""kind":"pushToStart""#))
        var removed = try #require(registry.tokens[Fixture.token])
        removed.holder = .removed(from: "d1", at: Fixture.now)
        let written = try encoder.encode(removed)
        #expect(String(decoding: written, as: UTF8.self).contains(#""removedFrom":"d1""#))
        let read = try JSONDecoder().decode(World.TokenRecord.self, from: written)
        #expect(read.kind == .declared && read.holder == nil, "what a client sends is declared, whatever it says beside")
        #expect(read.token == removed.token && read.state == removed.state)
    }

    @Test("The validator's copy is made by the first read after a change: a read sees every change before it, with or without reads between them")
    func copyMadeWhenRead() {
        let registry = WorldRegistry(World())
        let tokens = (0..<4).map { DeviceToken(String(repeating: "0\($0)", count: 32))! }
        func register(_ token: DeviceToken) {
            registry.change { registry in
                _ = registry.attach(Fixture.session("d-\(token.short)"), now: Fixture.now)
                _ = registry.register(.init(bundleID: "com.example.app", environment: .development, token: token),
                                      device: "d-\(token.short)", team: "TEAM000001")
            }
        }
        register(tokens[0])
        #expect(registry.snapshot.tokens[tokens[0]]?.state == .active, "read right after the change")
        let before = registry.snapshot
        register(tokens[1])
        register(tokens[2])  // no read between these two
        #expect(before.tokens[tokens[1]] == nil, "a copy read earlier keeps the world it was")
        #expect(registry.read { world in [tokens[1], tokens[2]].allSatisfy { world.tokens[$0] != nil } })
        registry.change { _ in }  // changes nothing: the copy stays
        registry.update { $0.apps["com.example.app"]?.team = "TEAM000002" }
        #expect(registry.snapshot.apps["com.example.app"]?.team == "TEAM000002", "the world's own changes too")
        register(tokens[3])
        #expect(registry.snapshot.tokens.count == 4)
        #expect(registry.inspect { $0.validated.tokens } == registry.snapshot.tokens, "the copy is the registry's world")
    }
}
