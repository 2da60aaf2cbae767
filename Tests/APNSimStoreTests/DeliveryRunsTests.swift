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

    @Test("Kinds whose order matters stay in their runs: a release between two holds is three statements, and an unlink splits the links around it")
    func orderKept() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let events: [DeliveryEvent] = [.linked(device: "d1", replica: "a", at: at), .unlinked(device: "d1", replica: "a"),
                                       .linked(device: "d1", replica: "a", at: at.addingTimeInterval(1)), .released(id: "p1"),
                                       .acknowledged(id: "p1", at: at), .released(id: "p2")]
        #expect(try DeliveryRuns(events, replica: "a").runs.count == 6)
    }
}
