@testable import APNSimGateway
import APNSimRules
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

    @Test("Accepted and displayed 3 ms apart, in one batch or two, in memory or in a file, count in the 5 ms bucket and not the 2 ms one",
          arguments: [false, true])
    func recordTimes(inFile: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-latency-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = DeliveryRecord(id: "d1", apnsID: "A", device: "iphone", bundleID: "com.example.app", token: "ab",
                                    pushType: "alert", acceptedAt: Self.at)
        let receipt = DeliveryEvent.receipt(id: "d1", outcome: .displayed, content: nil, detail: nil, at: Self.at + 0.003)
        let suppressed = DeliveryEvent.receipt(id: "d2", outcome: .suppressed, content: nil, detail: nil, at: Self.at + 0.003)
        var second = record
        second.id = "d2"
        for (number, batches) in [[[DeliveryEvent.accepted(record), .accepted(second), receipt, suppressed]],
                                  [[.accepted(record), .accepted(second)], [receipt, suppressed]]].enumerated() {
            let metrics = GatewayMetrics()
            let store = try inFile ? SQLiteStore(path: folder.appendingPathComponent("\(number).sqlite").path) : SQLiteStore()
            let recorder = DeliveryRecorder(store: store, observe: { metrics.count($0) })
            for batch in batches {
                recorder.record(contentsOf: batch)
                try await recorder.flush()
            }
            let exposition = metrics.exposition(.init(connections: 0, devicesOnline: 0, stored: 0, unacknowledged: 0))
            #expect(Self.bucket(exposition, "0.002") == 0, "\(batches.count) batches")
            #expect(Self.bucket(exposition, "0.005") == 1, "\(batches.count) batches: the suppressed push has no display latency")
        }
    }

    @Test("A receipt for a push the record no longer holds has no latency")
    func dropped() async throws {
        let metrics = GatewayMetrics()
        let recorder = DeliveryRecorder(store: try SQLiteStore(), observe: { metrics.count($0) })
        recorder.record(.receipt(id: "gone", outcome: .displayed, content: nil, detail: nil, at: Self.at))
        try await recorder.flush()
        let exposition = metrics.exposition(.init(connections: 0, devicesOnline: 0, stored: 0, unacknowledged: 0))
        #expect((Self.bucket(exposition, "+Inf") ?? 0) == 0, "no observation, so no bucket or an empty one")
    }
}
