@testable import APNSimGateway
import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation
import Testing

/// The registry as one replica of several on one store (docs/cluster.md), driven with plain values: links written, pushes
/// handed to the replica a device is linked to, what is held here handed on when it links elsewhere.
@Suite("Device registry: replicas")
struct DeviceRegistryReplicaTests {
    typealias Words = DeviceRegistryTests

    /// Replica `name`'s registry, knowing d1's token (as from the store) but not linked to d1.
    static func replica(_ name: String = "a") -> DeviceRegistry {
        var registry = DeviceRegistry(world: World())
        registry.replica = name
        registry.adopt(DeviceRegistration(token: Words.token, device: DeviceDescriptor(id: "d1", name: "Phone"), bundleID: "com.example.app",
                                          environment: .development), linkedTo: nil)
        return registry
    }

    @Test("A device linking and its link ending are written for the other replicas; the only gateway writes neither")
    func linksWritten() {
        var registry = Self.replica()
        let session = Words.session()
        #expect(Words.words(registry.attach(session, now: Words.now)) == ["linked:a", "claimed>a", "changed"],
                "and what any replica stored for it is claimed from the store")
        #expect(Words.words(registry.detach(session)) == ["unlinked:a", "changed"])
        var alone = DeviceRegistry(world: World())
        #expect(Words.words(alone.attach(session, now: Words.now)) == ["changed"])
    }

    @Test("A push for a device linked to another replica is handed to it, not recorded here; one for a device linked nowhere is stored here")
    func handedToTheLinkedReplica() {
        var registry = Self.replica()
        #expect(Words.words(registry.route(Words.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Words.now))
                == ["accepted:p1", "stored:p1"])
        _ = registry.linked("d1", at: "b", now: Words.now)
        #expect(Words.words(registry.route(Words.plan(), apnsID: "A2", payload: "{}", newID: { "p2" }, now: Words.now)) == ["handedOff:p2>b"])
        _ = registry.unlinked("d1", at: "c")
        #expect(registry.replicaElsewhere(of: "d1") == "b", "an end of a link it no longer has changes nothing")
        _ = registry.unlinked("d1", at: "b")
        #expect(registry.replicaElsewhere(of: "d1") == nil)
    }

    @Test("Pushes held here go to the replica the device links to: sent ones handed on, already recorded; stored ones claimed by it from the store; its own link here wins over one elsewhere")
    func heldHandedOn() {
        var registry = Self.replica()
        let session = Words.session()
        _ = registry.attach(session, now: Words.now)
        _ = registry.route(Words.plan(), apnsID: "A1", payload: "{}", newID: { "p1" }, now: Words.now)  // sent, not acknowledged
        _ = registry.detach(session)
        _ = registry.route(Words.plan(), apnsID: "A2", payload: "{}", newID: { "p2" }, now: Words.now)  // stored
        let moved = registry.linked("d1", at: "b", now: Words.now)
        #expect(Words.words(moved) == ["claimed>b", "handedOff:p1>b", "released:p1", "changed"],
                "a stored push is the store's: another replica's may have replaced it, and the row moves once")
        #expect(moved.persist.allSatisfy { if case .handedOff(let handOff) = $0 { handOff.recorded } else { true } })
        #expect(!registry.held.holds("d1"))

        _ = registry.attach(Words.session(), now: Words.now)
        #expect(Words.words(registry.route(Words.plan(), apnsID: "A3", payload: "{}", newID: { "p3" }, now: Words.now))
                == ["accepted:p3", "held:p3", "send:p3"], "linked here now")
    }

    @Test("A stored push claimed from the store past its apns-expiration is recorded dropped once the device is here, not sent")
    func claimedExpired() {
        var registry = Self.replica()
        _ = registry.attach(Words.session(), now: Words.now)
        let delivery = Delivery(id: "p1", apnsID: "A1", token: Words.token, bundleID: "com.example.app", pushType: .alert, priority: 10,
                                collapseID: nil, payload: "{}")
        var handOff = HandOff(replica: "a", device: "d1", delivery: delivery, expiration: .until(Words.now.addingTimeInterval(-1)),
                              uniqueID: nil, acceptedAt: Words.now, recorded: true)
        handOff.row = 3
        #expect(Words.words(registry.take(handOff, now: Words.now)) == ["dropped:p1", "done:3"])
        handOff.expiration = .until(Words.now.addingTimeInterval(60))
        #expect(Words.words(registry.take(handOff, now: Words.now)) == ["held:p1", "done:3", "send:p1"], "within its expiry: sent")
    }

    @Test("An app another replica removed: its token, taken in here, is removed from the same moment, with nothing written again; a push handed here for it afterwards is recorded dropped, not sent")
    func removedElsewhere() {
        var registry = Self.replica()
        _ = registry.attach(Words.session(), now: Words.now)
        var registration = DeviceRegistration(token: Words.token, device: DeviceDescriptor(id: "d1", name: "Phone"), bundleID: "com.example.app",
                                              environment: .development)
        #expect(registry.removedElsewhere(registration).persist.isEmpty, "not removed: nothing changes")
        registration.unregisteredFrom = Words.now
        let removed = registry.removedElsewhere(registration)
        #expect(!removed.persist.contains { if case .unregistered = $0 { true } else { false } }, "the store has it")
        guard case .removed(let former) = registry.destination(of: Words.token) else {
            Issue.record("the token is not removed here")
            return
        }
        #expect(former.device == "d1" && former.removedAt == Words.now)
        let delivery = Delivery(id: "p1", apnsID: "A1", token: Words.token, bundleID: "com.example.app", pushType: .alert, priority: 10,
                                collapseID: nil, payload: "{}")
        var handOff = HandOff(replica: "a", device: "d1", delivery: delivery, expiration: .storeByDefault, uniqueID: nil, acceptedAt: Words.now)
        handOff.row = 7
        #expect(Words.words(registry.take(handOff, now: Words.now)) == ["dropped:p1", "done:7"])
    }

    @Test("A push handed here is delivered as this replica's own; one for a device that moved on is handed on, at most three times")
    func takenOrHandedOn() {
        var registry = Self.replica()
        let session = Words.session()
        _ = registry.attach(session, now: Words.now)
        let delivery = Delivery(id: "p1", apnsID: "A1", token: Words.token, bundleID: "com.example.app", pushType: .alert, priority: 10,
                                collapseID: nil, payload: "{}")
        var handOff = HandOff(replica: "a", device: "d1", delivery: delivery, expiration: .storeByDefault, uniqueID: nil, acceptedAt: Words.now)
        handOff.row = 7
        #expect(Words.words(registry.take(handOff, now: Words.now)) == ["accepted:p1", "held:p1", "done:7", "send:p1"],
                "carried out in the batch that records it")

        _ = registry.detach(session)
        _ = registry.linked("d1", at: "b", now: Words.now)
        var second = handOff
        second.delivery.id = "p2"
        #expect(Words.words(registry.take(second, now: Words.now)) == ["handedOff:p2>b", "done:7"])
        second.hops = HandOff.maximumHops
        #expect(Words.words(registry.take(second, now: Words.now)) == ["accepted:p2", "stored:p2", "done:7"], "held here past the hops")
    }

    @Test("A broadcast reaches the activities of devices whose last link was here, not of one that linked to another replica since (that one fans out to it), and again once it links back")
    func broadcastToOwnDevices() {
        var registry = Self.replica()
        let channel = BroadcastChannel(id: "Y2g=", bundleID: "com.example.app", environment: .development, storagePolicy: .noStorage,
                                       createdAt: Words.now)
        #expect(registry.createChannel(channel) == nil)
        _ = registry.attach(Words.session(), now: Words.now)
        _ = registry.startActivity(LiveActivity(id: "act-1", bundleID: "com.example.app", attributesType: "T", attributes: [:],
                                                contentState: [:], startedAt: Words.now, channelID: channel.id),
                                   environment: .development, device: "d1")
        let plan = BroadcastPlan(channel: channel, apnsID: "A-1", priority: 10, expiration: .once)
        func targets() -> [String] {
            registry.beginBroadcast(plan, apnsID: "A-1", payload: "{}", now: Words.now).flatMap { $0.map(\.activity) }
        }
        #expect(targets() == ["act-1"])
        _ = registry.detach(registry.link(of: "d1")!)
        #expect(targets() == ["act-1"], "out of reach, its last link here: this replica's")
        _ = registry.linked("d1", at: "b", now: Words.now)
        #expect(targets() == [], "linked to b: b's")
        _ = registry.unlinked("d1", at: "b")
        #expect(targets() == [], "gone out of reach from b: still b's")
        _ = registry.attach(Words.session(), now: Words.now)
        #expect(targets() == ["act-1"], "back here")
    }
}
