import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Testing

/// The record stays within its limits: the newest sends and deliveries up to a count, nothing past an age, and the
/// number dropped is known.
@Suite("Record limits")
struct RetentionTests {
    static func delivery(_ number: Int, at seconds: TimeInterval = 1_800_000_000) -> DeliveryRecord {
        DeliveryRecord(id: "d-\(number)", apnsID: "A-\(number)", device: "iphone", bundleID: "com.example.app", token: "a1b2",
                       pushType: "alert", acceptedAt: Date(timeIntervalSince1970: seconds))
    }

    @Test("Past the count limit the oldest sends go, in batches; what is kept is the newest, and the rest is counted")
    func sendCount() async throws {
        let store = try SQLiteStore()
        var limits = RecordLimits()
        limits.sends = 20
        let recorder = SendRecorder(store: store, limits: limits)
        for second in 0..<250 {
            recorder.record(StoreTests.record(at: 1_800_000_000 + Double(second)))
            try await recorder.flush()
            let kept = try store.sendCount()
            #expect(kept <= 22, "never more than the limit and a tenth of it: \(kept)")
            #expect(kept + recorder.dropped == second + 1, "every send is kept or counted as dropped")
        }
        let newest = try store.sends(matching: .init(limit: 1000)).map(\.receivedAt.timeIntervalSince1970)
        #expect(newest.first == 1_800_000_249)
        #expect(newest == newest.sorted(by: >) && newest.last! >= 1_800_000_249 - 21, "the kept ones are the newest")
    }

    @Test("Past the age limit records go, checked once a clock second")
    func age() async throws {
        let store = try SQLiteStore()
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_100))
        var limits = RecordLimits()
        limits.maximumAge = 60
        let sends = SendRecorder(store: store, limits: limits, clock: .manual(clock))
        let deliveries = DeliveryRecorder(store: store, limits: limits, clock: .manual(clock))
        for second in stride(from: 0, to: 100, by: 10) {
            sends.record(StoreTests.record(at: 1_800_000_000 + Double(second)))
            deliveries.record(.accepted(Self.delivery(second, at: 1_800_000_000 + Double(second))))
        }
        try await sends.flush()
        try await deliveries.flush()
        // Now is 100 s after the first record: those of seconds 0 to 30 are over 60 s old.
        #expect(try store.sendCount() == 6)
        let times = try store.deliveries(matching: .init(limit: 100)).map(\.acceptedAt.timeIntervalSince1970)
        #expect(try store.deliveryCounts().total == 6, "\(times)")
        #expect(sends.dropped == 4 && deliveries.dropped == 4)
        clock.advance(by: 0.5)
        sends.record(StoreTests.record(at: 1_800_000_100))
        try await sends.flush()
        #expect(try store.sendCount() == 7, "no new age check within the same second")
    }

    @Test("Deliveries past the count limit go oldest first; a receipt for a dropped one changes nothing")
    func deliveryCount() async throws {
        let store = try SQLiteStore()
        var limits = RecordLimits()
        limits.deliveries = 10
        let recorder = DeliveryRecorder(store: store, limits: limits)
        for number in 0..<100 {
            recorder.record(.accepted(Self.delivery(number)))
            try await recorder.flush()
        }
        let kept = try store.deliveries(matching: .init(limit: 1000)).map(\.id)
        #expect(kept.count + recorder.dropped == 100)
        #expect(kept.count <= 11 && kept.last == "d-99")
        recorder.record(.receipt(id: "d-0", outcome: .displayed, content: nil, detail: nil, at: Date()))
        try await recorder.flush()
        #expect(try store.deliveries(matching: .init(apnsID: "A-0")).isEmpty)
    }

    @Test("A store file reopened knows how many records it holds, so the limit holds across restarts")
    func reopened() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-retention-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var limits = RecordLimits()
        limits.sends = 10
        do {
            let recorder = SendRecorder(store: try SQLiteStore(path: path), limits: limits)
            for second in 0..<10 { recorder.record(StoreTests.record(at: 1_800_000_000 + Double(second))) }
            try await recorder.flush()
        }
        let store = try SQLiteStore(path: path)
        let recorder = SendRecorder(store: store, limits: limits)
        for second in 10..<15 {
            recorder.record(StoreTests.record(at: 1_800_000_000 + Double(second)))
            try await recorder.flush()
        }
        #expect(try store.sendCount() <= 11)
        #expect(try store.sendCount() + recorder.dropped == 15)
    }

    /// GRDB 7 ignored the static date strategy the records declared, so dates were stored as text and this filter,
    /// comparing them with a number, let every delivery through.
    @Test("Deliveries are filtered by acceptance time: dates are stored as numbers")
    func afterFilter() async throws {
        let store = try SQLiteStore()
        let recorder = DeliveryRecorder(store: store)
        for second in [10.0, 20, 30] { recorder.record(.accepted(Self.delivery(Int(second), at: 1_800_000_000 + second))) }
        try await recorder.flush()
        let after = try store.deliveries(matching: .init(after: Date(timeIntervalSince1970: 1_800_000_015), limit: 10))
        #expect(after.map(\.id) == ["d-20", "d-30"])
    }
}
