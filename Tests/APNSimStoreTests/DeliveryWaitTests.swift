import APNSimRules
import APNSimStore
import Foundation
import Testing

/// The long-poll on the delivery record (`GET /v1/deliveries?wait&count`, APNSimTesting's waits): it answers once enough
/// deliveries match, whatever batches they land in, counting again only once enough could have landed.
@Suite("Delivery record: waiting for a count")
struct DeliveryWaitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func accept(_ ids: some Sequence<Int>, to recorder: DeliveryRecorder) {
        for id in ids {
            recorder.record(.accepted(DeliveryRecord(id: "p\(id)", apnsID: "A\(id)", device: "d1", bundleID: "com.example.app",
                                                     token: String(repeating: "ab", count: 32), pushType: "liveactivity",
                                                     acceptedAt: start.addingTimeInterval(Double(id)))))
        }
    }

    static func complete(_ ids: some Sequence<Int>, in recorder: DeliveryRecorder) async throws {
        for id in ids {
            recorder.record(.receipt(id: "p\(id)", outcome: .liveactivity, content: nil, detail: nil, at: start.addingTimeInterval(100)))
        }
        try await recorder.flush()
    }

    @Test("A wait for five completed deliveries answers with the five once the fifth receipt lands, across batches and an erased record")
    func countsAcrossBatches() async throws {
        let recorder = DeliveryRecorder(store: try SQLiteStore())
        let waiting = Task {
            try await recorder.deliveries(matching: DeliveryFilter(completedOnly: true, limit: 10), count: 5, until: .now + .seconds(60))
        }
        Self.accept(1...5, to: recorder)
        try await Self.complete(1...2, in: recorder)
        try await recorder.deleteAll()  // POST /v1/reset: the two completed ones are gone
        Self.accept(6...10, to: recorder)
        try await Self.complete(6...8, in: recorder)
        for id in 9...10 { try await Self.complete([id], in: recorder) }
        let found = try await waiting.value
        #expect(found.map(\.id) == ["p6", "p7", "p8", "p9", "p10"])
    }

    @Test("A wait that cannot be met answers at its deadline with what matches")
    func deadline() async throws {
        let recorder = DeliveryRecorder(store: try SQLiteStore())
        Self.accept(1...3, to: recorder)
        try await Self.complete(1...3, in: recorder)
        let found = try await recorder.deliveries(matching: DeliveryFilter(completedOnly: true), count: 4, until: .now)
        #expect(found.count == 3)
    }
}
