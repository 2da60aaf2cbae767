@testable import APNSimGateway
import APNSimCore
import APNSimStore
import Foundation
import Testing

/// `apnsim_push_display_latency_seconds` is the record's own interval, from the request accepted to the receipt that
/// says the push was displayed: not the time between the record's batches, which the recorder's gathering sets.
@Suite("Display latency metric")
struct DisplayLatencyMetricTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    static func bucket(_ exposition: [UInt8], _ le: String) -> Double? {
        String(decoding: exposition, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix("apnsim_push_display_latency_seconds_bucket{") && $0.contains("le=\"\(le)\"") }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    @Test("Accepted and displayed 3 ms apart, in one batch or two, count in the 5 ms bucket and not the 2 ms one")
    func recordTimes() throws {
        let record = DeliveryRecord(id: "d1", apnsId: "A", device: "iphone", bundleID: "com.example.app", token: "ab",
                                    pushType: "alert", acceptedAt: Self.at)
        let receipt = DeliveryEvent.receipt(id: "d1", outcome: .displayed, content: nil, detail: nil, at: Self.at + 0.003)
        for batches in [[[DeliveryEvent.accepted(record), receipt]], [[.accepted(record)], [receipt]]] {
            let metrics = GatewayMetrics()
            for batch in batches { metrics.count(batch) }
            let exposition = metrics.exposition(.init(connections: 0, devicesOnline: 0, stored: 0, unacknowledged: 0))
            #expect(Self.bucket(exposition, "0.002") == 0, "\(batches.count) batches")
            #expect(Self.bucket(exposition, "0.005") == 1, "\(batches.count) batches")
        }
    }
}
