import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Testing

extension StoreConformanceTests {
    @Test("Random connection records, trimmed by count and age, read alike through every filter and cursor", arguments: candidates)
    func connections(candidate: Candidate) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            var limits = RecordLimits()
            limits.connections = 20
            limits.maximumAge = 30
            let recorders = [ConnectionRecorder(store: fileStore, limits: limits, clock: .manual(clock)),
                             ConnectionRecorder(store: candidateStore, limits: limits, clock: .manual(clock))]
            var random = SplitMix(seed: 11)
            var ids: [String] = []
            for step in 0..<200 {
                if Int.random(in: 0..<3, using: &random) == 0 { clock.advance(by: Double(Int.random(in: 1...64, using: &random)) / 32) }
                let event = ConnectionRecord.Event.allCases.randomElement(using: &random)!
                let record = ConnectionRecord(
                    id: "c-\(step)", at: clock.now, event: event, environment: Bool.random(using: &random) ? "development" : "production",
                    api: "provider", peer: "127.0.0.1:\(step)", reason: event == .goAway ? ["IdleTimeout", "Shutdown"].randomElement(using: &random) : nil,
                    lastStreamID: event == .goAway ? step : nil, tlsAlert: event == .tlsHandshakeFailed ? "unknown_ca" : nil,
                    explanation: "step \(step) \u{0} \"quoted\"")
                ids.append(record.id)
                for recorder in recorders { recorder.record(record) }
                if Int.random(in: 0..<15, using: &random) == 0 {
                    for recorder in recorders { try await recorder.flush() }
                    try await Self.compareConnections(fileStore, candidateStore, at: clock.now, cursor: ids.randomElement(using: &random)!)
                }
                if step == 100 { for recorder in recorders { try await recorder.deleteAll() } }
            }
            for recorder in recorders { try await recorder.flush() }
            try await Self.compareConnections(fileStore, candidateStore, at: clock.now, cursor: ids[ids.count - 5])
            #expect(try await candidateStore.connectionCount() <= 22, "kept within the limit and its tenth")
        }
    }

    static func compareConnections(_ file: any Store, _ candidate: any Store, at: Date, cursor: String) async throws {
        let filters = [ConnectionFilter(limit: 1_000), ConnectionFilter(limit: 3), ConnectionFilter(event: .goAway),
                       ConnectionFilter(reason: "IdleTimeout", environment: "production"), ConnectionFilter(after: at - 5),
                       ConnectionFilter(before: at - 2), ConnectionFilter(cursor: cursor), ConnectionFilter(cursor: "gone"),
                       { var newest = ConnectionFilter(cursor: cursor, limit: 4); newest.newestFirst = true; return newest }()]
        for filter in filters {
            let (expected, found) = (try await file.connections(matching: filter), try await candidate.connections(matching: filter))
            #expect(found == expected, "\(filter)")
        }
        #expect(try await file.connectionCount() == candidate.connectionCount())
    }
}
