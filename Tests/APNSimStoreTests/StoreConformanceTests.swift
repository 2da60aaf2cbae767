import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Testing

/// Every store answers as a SQLite file does (``SQLiteStore``): the same writes go to the file and to the store under
/// test, and every read must come back the same from both, in the same order. The store in memory keeps deliveries in
/// Swift's own collections; PostgreSQL (``PostgresStore``) runs when `APNSIM_TEST_POSTGRES` names a server, as
/// `.ci/run` does.
@Suite("Every store answers as a SQLite file does")
struct StoreConformanceTests {
    static let tokens = ["aa01", "aa02", "bb03", "cc04", "dd05"]
    static let devices = ["iphone", "ipad", "watch"]
    static let bundles = ["com.example.app", "com.example.other"]

    /// The stores that are held to a SQLite file's answers.
    enum Candidate: String, CaseIterable, CustomTestStringConvertible {
        case memory, postgres
        var testDescription: String { rawValue }
    }

    /// Runs `body` with a new SQLite file and a new store of `candidate`; PostgreSQL's is a database of its own.
    static func withStores(_ candidate: Candidate, _ body: (_ file: any Store, _ candidate: any Store) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)
        switch candidate {
        case .memory: try await body(file, try SQLiteStore())
        case .postgres: try await TestPostgres.withStore { store, _ in try await body(file, store) }
        }
    }

    /// PostgreSQL's cases only when a server is named.
    static let candidates: [Candidate] = TestPostgres.isConfigured ? Candidate.allCases : [.memory]

    /// One run of random events; `clockSetBack` sometimes records a push accepted before the one recorded last, as
    /// when `POST /v1/clock` moves a virtual clock or the system's clock steps back.
    @Test("Random delivery events, trimmed by count and age, read alike through every filter",
          arguments: candidates, [(seed: 1, clockSetBack: false), (seed: 2, clockSetBack: false), (seed: 3, clockSetBack: true), (seed: 4, clockSetBack: true)])
    func deliveries(candidate: Candidate, run: (seed: Int, clockSetBack: Bool)) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let clock = ManualClock(start)
            var limits = RecordLimits()
            limits.deliveries = 60
            limits.maximumAge = 40
            // Both trim as the candidate does: a shared store's recorder counts the table again now and then.
            let recount = candidateStore.isShared
            let candidate = DeliveryRecorder(store: candidateStore, limits: limits, clock: .manual(clock), recount: recount)
            let file = DeliveryRecorder(store: fileStore, limits: limits, clock: .manual(clock), recount: recount)
            var random = SplitMix(seed: UInt64(run.seed))
            var ids: [String] = []
            var compared = 0
            // Past 1,024 rows removed after the reset, the memory table drops its empty front and sweeps its lists.
            for step in 0..<4_000 {
                // Times in whole 1/64 s: a date and its seconds since 1970 in the file are then the same number exactly.
                if Int.random(in: 0..<4, using: &random) == 0 { clock.advance(by: Double(Int.random(in: 1...64, using: &random)) / 64) }
                var at = clock.now
                if run.clockSetBack && Int.random(in: 0..<10, using: &random) == 0 { at -= Double(Int.random(in: 1...640, using: &random)) / 64 }
                let event = Self.event(step: step, at: at, ids: &ids, random: &random)
                candidate.record(event)
                file.record(event)
                if Int.random(in: 0..<50, using: &random) == 0 {
                    try await candidate.flush()
                    try await file.flush()
                    compared += try await Self.compare(candidateStore, fileStore, ids: ids, at: at, random: &random)
                }
                if step == 600 {
                    try await candidate.deleteAll()
                    try await file.deleteAll()
                }
            }
            try await candidate.flush()
            try await file.flush()
            compared += try await Self.compare(candidateStore, fileStore, ids: ids, at: clock.now, random: &random)
            #expect(candidate.dropped == file.dropped)
            #expect(candidate.dropped > 0, "the limits were reached")
            #expect(compared > 1_000, "enough records were compared")
        }
    }

    static func event(step: Int, at: Date, ids: inout [String], random: inout SplitMix) -> DeliveryEvent {
        let known = ids.randomElement(using: &random) ?? "none"
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<8, 19:
            // Now and then an ID recorded before, as `INSERT OR REPLACE` meets it.
            let id = Int.random(in: 0..<30, using: &random) == 0 ? known : "d-\(step)"
            let token = tokens.randomElement(using: &random)!
            var record = DeliveryRecord(id: id, apnsID: "A-\(step % 40)", device: devices[tokens.firstIndex(of: token)! % devices.count],
                                        bundleID: bundles.randomElement(using: &random)!, token: token, pushType: "alert", acceptedAt: at)
            if Bool.random(using: &random) { record.uniqueID = "u-\(step % 7)" }
            if Int.random(in: 0..<10, using: &random) == 0 {
                record.outcome = .dropped
                record.detail = "the gateway completed it"
                record.displayedAt = at
            }
            ids.append(id)
            return .accepted(record)
        case 8..<10:
            return .acknowledged(id: known, at: at)
        case 10..<14:
            let content = NotificationContent(title: "T\(step)", body: "B", badge: step % 3, threadID: "t")
            return .receipt(id: known, outcome: Bool.random(using: &random) ? .displayed : .suppressed,
                            content: Bool.random(using: &random) ? EncodedJSON(content) : nil, detail: "r\(step)", at: at,
                            presentation: EncodedJSON(Presentation(bundleID: "com.example.app", thread: "t", banner: true, list: true)))
        case 14..<16:
            return .forgotten(id: known, detail: "forgotten \(step)", at: at)
        case 16..<18:
            return .stored(id: known, reason: Bool.random(using: &random) ? .offline : .power, at: at)
        default:
            return .receipt(id: "missing-\(step)", outcome: .displayed, content: nil, detail: nil, at: at)
        }
    }

    /// Reads both records through a spread of filters; returns how many records were compared.
    static func compare(_ memory: any Store, _ file: any Store, ids: [String], at: Date, random: inout SplitMix) async throws -> Int {
        var filters: [DeliveryFilter] = [DeliveryFilter(limit: 1_000), DeliveryFilter(limit: -1), DeliveryFilter(limit: 0)]
        for token in tokens + ["AA01", "ffff"] {
            filters.append(DeliveryFilter(token: token, limit: 4))
            filters.append(DeliveryFilter(token: token, completedOnly: true, limit: 1_000))
        }
        for device in devices + ["nobody"] {
            var newest = DeliveryFilter(device: device, limit: 5)
            newest.newestFirst = true
            filters.append(newest)
            filters.append(DeliveryFilter(device: device, bundleID: bundles[1], limit: 1_000))
        }
        filters.append(DeliveryFilter(apnsID: "A-3", limit: 1_000))
        var unique = DeliveryFilter(limit: 1_000)
        unique.uniqueID = "U-2"
        filters.append(unique)
        filters.append(DeliveryFilter(after: at - 10, limit: 1_000))
        filters.append(DeliveryFilter(token: tokens[0], after: at - 20, completedOnly: true, limit: 2))
        var before = DeliveryFilter(limit: 1_000)
        before.before = at - 10
        filters.append(before)
        for cursor in [ids.last ?? "none", ids.randomElement(using: &random) ?? "none", ids.first ?? "none", "never-recorded"] {
            var page = DeliveryFilter(limit: 10)
            page.newestFirst = true
            page.page = .olderThan(cursor)
            filters.append(page)
            var oldest = DeliveryFilter(device: devices[0], limit: 1_000)
            oldest.page = .olderThan(cursor)
            filters.append(oldest)
            var newer = DeliveryFilter(limit: 10)
            newer.page = .newerThan(cursor)
            filters.append(newer)
        }
        var compared = 0
        for filter in filters {
            let fromMemory = try await memory.deliveries(matching: filter)
            let fromFile = try await file.deliveries(matching: filter)
            #expect(fromMemory == fromFile, "\(filter)")
            let counts = (try await memory.deliveryCount(matching: filter), try await file.deliveryCount(matching: filter))
            #expect(counts.0 == counts.1, "\(filter)")
            compared += fromFile.count
        }
        let counts = (memory: try await memory.deliveryCounts(), file: try await file.deliveryCounts())
        #expect(counts.memory == counts.file)
        return compared
    }
}
