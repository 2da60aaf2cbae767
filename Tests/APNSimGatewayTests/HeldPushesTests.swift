import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import APNSimStore
import Foundation
import Testing

/// APNs' store-and-forward rules, driven with plain values: no device, no socket, a fixed clock.
@Suite("Held pushes")
struct HeldPushesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = DeviceToken(String(repeating: "ab", count: 32))!

    static func push(_ id: String, app: String = "com.example.app") -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: token, bundleID: app, pushType: .alert, priority: 10, collapseID: nil,
              payload: #"{"aps":{"alert":"\#(id)"}}"#)
    }

    /// What the events say, as short words: `held:ID`, `stored:ID`, `released:ID`, `dropped:ID`, `releasedAll`.
    static func words(_ events: [DeliveryEvent]) -> [String] {
        events.map { event in
            switch event {
            case .held(let held): "\(held.slot == nil ? "held" : "stored"):\(held.id)"
            case .released(let id): "released:\(id)"
            case .receipt(let id, let outcome, _, _, _, _, _, _): "\(outcome.rawValue):\(id)"
            case .releasedAll: "releasedAll"
            default: "other"
            }
        }
    }

    @Test("Online: sent and held until acknowledged; the acknowledgement releases it, once")
    func sentThenAcknowledged() {
        var held = HeldPushes()
        let (routing, events) = held.route(Self.push("1"), to: "d", online: true, expiration: .storeByDefault, now: Self.now)
        #expect(routing == .sent)
        #expect(Self.words(events) == ["held:1"])
        #expect(Self.words(held.acknowledge("1")) == ["released:1"])
        #expect(held.acknowledge("1").isEmpty)
        #expect(held.arrive("d", now: Self.now).send.isEmpty, "nothing left to send again")
    }

    @Test("With the record in memory, held pushes follow the same rules and make no events a restart would read; outcomes still make theirs")
    func noRestartState() {
        var held = HeldPushes()
        held.recordsRestartState = false
        let (sent, sentEvents) = held.route(Self.push("1"), to: "d", online: true, expiration: .storeByDefault, now: Self.now)
        let (stored, storedEvents) = held.route(Self.push("2"), to: "e", online: false, expiration: .until(Self.now + 60), now: Self.now)
        #expect(sent == .sent && stored == .stored(replacing: nil))
        #expect(sentEvents.isEmpty && storedEvents.isEmpty)
        #expect(held.arrive("d", now: Self.now).send.map(\.id) == ["1"], "still held until acknowledged")
        #expect(held.acknowledge("1").isEmpty)
        #expect(held.arrive("d", now: Self.now).send.isEmpty)
        let late = held.arrive("e", now: Self.now + 120)
        #expect(late.send.isEmpty && Self.words(late.events) == ["dropped:2"], "expired while offline: recorded dropped, no release")
    }

    @Test("Offline: one stored push per app, the newer replacing the older; other apps keep theirs")
    func onePerApp() {
        var held = HeldPushes()
        _ = held.route(Self.push("1"), to: "d", online: false, expiration: .storeByDefault, now: Self.now)
        _ = held.route(Self.push("2", app: "com.example.other"), to: "d", online: false, expiration: .storeByDefault, now: Self.now)
        let (routing, _) = held.route(Self.push("3"), to: "d", online: false, expiration: .storeByDefault, now: Self.now)
        #expect(routing == .stored(replacing: "1"))
        #expect(held.arrive("d", now: Self.now).send.map(\.id) == ["2", "3"])
    }

    @Test("apns-expiration 0 is not stored for an offline device; it is sent to an online one")
    func expirationZero() {
        var held = HeldPushes()
        let (offline, events) = held.route(Self.push("1"), to: "d", online: false, expiration: .once, now: Self.now)
        #expect(offline == .dropped && events.isEmpty)
        #expect(held.route(Self.push("2"), to: "d", online: true, expiration: .once, now: Self.now).0 == .sent)
    }

    @Test("Coming back: unacknowledged pushes again in the order first sent, then stored ones; expired ones recorded dropped")
    func arrival() {
        var held = HeldPushes()
        for id in ["b", "a", "c"] { _ = held.route(Self.push(id), to: "d", online: true, expiration: .storeByDefault, now: Self.now) }
        _ = held.route(Self.push("s1", app: "app.one"), to: "d", online: false, expiration: .until(Self.now.addingTimeInterval(60)), now: Self.now)
        _ = held.route(Self.push("s2", app: "app.two"), to: "d", online: false, expiration: .until(Self.now.addingTimeInterval(10)), now: Self.now)
        _ = held.route(Self.push("other"), to: "e", online: false, expiration: .storeByDefault, now: Self.now)
        let later = Self.now.addingTimeInterval(30)
        let (send, events) = held.arrive("d", now: later)
        #expect(send.map(\.id) == ["b", "a", "c", "s1"])
        #expect(Self.words(events) == ["held:s1", "dropped:s2", "released:s2"])
        #expect(held.arrive("e", now: later).send.map(\.id) == ["other"], "another device's push stays its own")
        #expect(held.arrive("d", now: later).send.map(\.id) == ["b", "a", "c", "s1"], "still unacknowledged: sent again")
    }

    @Test("A push stored without apns-expiration is kept 30 days")
    func defaultStorage() {
        var held = HeldPushes()
        _ = held.route(Self.push("1"), to: "d", online: false, expiration: .storeByDefault, now: Self.now)
        var copy = held
        #expect(copy.arrive("d", now: Self.now.addingTimeInterval(30 * 86_400 - 1)).send.map(\.id) == ["1"])
        #expect(Self.words(held.arrive("d", now: Self.now.addingTimeInterval(30 * 86_400)).events) == ["dropped:1", "released:1"])
    }

    @Test("What a previous run held comes back: stored in its slot, sent ones to be sent again; a reset releases all")
    func restoreAndReset() {
        var held = HeldPushes()
        held.restore([HeldPush(id: "s", device: "d", slot: "d\u{1F}com.example.app", expires: Self.now.addingTimeInterval(60), delivery: Self.push("s")),
                      HeldPush(id: "u", device: "d", slot: nil, expires: nil, delivery: Self.push("u"))])
        #expect(held.route(Self.push("n"), to: "d", online: false, expiration: .storeByDefault, now: Self.now).0 == .stored(replacing: "s"))
        var reset = held
        #expect(Self.words(reset.releaseAll()) == ["releasedAll"])
        #expect(reset.arrive("d", now: Self.now).send.isEmpty)
        #expect(held.arrive("d", now: Self.now).send.map(\.id) == ["u", "n"])
    }
}
