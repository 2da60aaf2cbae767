@testable import APNSimStore
import APNSimRules
import Foundation
import Testing

/// How a batch of delivery events becomes PostgreSQL statements (``DeliveryRuns``): one per run of a kind, and for the
/// kinds that commute, one per kind over the whole stretch, however they interleave.
@Suite("PostgreSQL statements of a batch")
struct DeliveryRunsTests {
    static func registration(_ device: String) -> DeviceRegistration {
        DeviceRegistration(token: DeviceToken(String(repeating: "0\(device.count)", count: 32))!, device: DeviceDescriptor(id: device, name: device),
                           bundleID: "com.example.app", environment: .development)
    }

    @Test("Devices linking and registering at once, interleaved, make one statement per kind, not one per event")
    func commutingGrouped() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        var events: [DeliveryEvent] = []
        for device in (1...500).map({ "d\($0)" }) {
            events += [.linked(device: device, replica: "a", at: at), .storedClaimed(device: device, replica: "a"), .registered(Self.registration(device))]
        }
        #expect(try DeliveryRuns(events, replica: "a").runs.count == 3)
    }

    @Test("Kinds whose order matters stay in their runs: an unlink splits the links around it")
    func orderKept() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let events: [DeliveryEvent] = [.linked(device: "d1", replica: "a", at: at), .unlinked(device: "d1", replica: "a"),
                                       .linked(device: "d1", replica: "a", at: at.addingTimeInterval(1)), .released(id: "p1"),
                                       .acknowledged(id: "p1", at: at), .released(id: "p2")]
        #expect(try DeliveryRuns(events, replica: "a").runs.count == 5, "three link runs, then one acknowledgement and one release")
    }

    static func held(_ id: String, slot: String? = nil) -> DeliveryEvent {
        .held(HeldPush(id: id, device: "iphone", slot: slot, expires: nil, delivery: PostgresReplicaTests.delivery(id)))
    }

    static func receipt(_ id: String) -> DeliveryEvent {
        .receipt(id: id, outcome: .displayed, content: nil, detail: nil, at: DeliveryRowTests.at + 1)
    }

    @Test("Pushes accepted, held while sent, acknowledged and displayed, interleaved, make one statement per kind")
    func pushesGathered() throws {
        var events: [DeliveryEvent] = []
        for id in (1...500).map({ "p\($0)" }) {
            events += [DeliveryRowTests.accepted(id), Self.held(id), .acknowledged(id: id, at: DeliveryRowTests.at), Self.receipt(id)]
        }
        #expect(try DeliveryRuns(events, replica: "a").runs.count == 6, "accepted, held (its slots' locks, deletion, insertion), acknowledged, receipts")
    }

    @Test("A push's events that would be reordered on its row end the stretch, and a push stored in a slot stays in a run of its own")
    func pushOrderKept() throws {
        let late: [DeliveryEvent] = [DeliveryRowTests.accepted("p1"), Self.receipt("p1"), .acknowledged(id: "p1", at: DeliveryRowTests.at)]
        #expect(try DeliveryRuns(late, replica: "a").runs.count == 3, "the acknowledgement after the receipt is a stretch of its own")
        let again: [DeliveryEvent] = [Self.held("p1"), .released(id: "p1"), Self.held("p1")]
        #expect(try DeliveryRuns(again, replica: "a").runs.count == 7, "held again after its release: two stretches")
        let slotted: [DeliveryEvent] = [DeliveryRowTests.accepted("p1"), Self.held("p2", slot: "s"), DeliveryRowTests.accepted("p3")]
        #expect(try DeliveryRuns(slotted, replica: "a").runs.count == 5)
    }
}
