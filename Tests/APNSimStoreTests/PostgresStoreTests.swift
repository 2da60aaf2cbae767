import APNSimStore
import Foundation
import Testing

/// What only PostgreSQL does: replicas opening one database at once, a refused password. Runs when
/// `APNSIM_TEST_POSTGRES` names a server (`.ci/run` starts one).
@Suite("PostgreSQL store", .enabled(if: TestPostgres.isConfigured))
struct PostgresStoreTests {
    @Test("Five stores opened at once on an empty database migrate it once, without an error, and share what is written")
    func migrationsOnce() async throws {
        let database = try await TestPostgres.freshDatabase()
        defer { Task { try? await TestPostgres.drop(database) } }
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<5 { group.addTask { try await PostgresStore.open(database) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        defer { for store in stores { store.close() } }
        let versions = try await TestPostgres.integers("SELECT version FROM apnsim_schema", in: database)
        #expect(versions.count == 1, "one migration: \(versions)")
        try await stores[1].insertSends([StoreTests.record(token: "aa01")])
        #expect(try await stores[4].sends(matching: SendFilter()).map(\.token) == ["aa01"], "one store's write, another's read")
    }

    @Test("Three replicas writing one record keep it within the limit between them, not three times it")
    func retentionShared() async throws {
        try await TestPostgres.withStore { _, database in
            let stores = [try await PostgresStore.open(database), try await PostgresStore.open(database), try await PostgresStore.open(database)]
            defer { for store in stores { store.close() } }
            var limits = RecordLimits()
            limits.sends = 100
            let recorders = stores.map { SendRecorder(store: $0, limits: limits) }
            var most = 0
            for round in 0..<150 {
                for (number, recorder) in recorders.enumerated() {
                    recorder.record(StoreTests.record(token: "aa0\(number)", at: 1_800_000_000 + Double(round)))
                    try await recorder.flush()
                    most = max(most, try await stores[0].sendCount())
                }
            }
            // A replica counts the table again every tenth of the limit it writes (10 here), so the others' rows are
            // seen within 3 × 10 and the table trimmed back: never past the limit, a tenth and that.
            #expect(most <= 100 + 10 + 30, "the shared record grew to \(most) sends")
            #expect(try await stores[1].sendCount() <= 140)
        }
    }

    @Test("A wrong password is one sentence naming the address, in PostgreSQL's words, without the password")
    func wrongPassword() async throws {
        var address = try #require(TestPostgres.address)
        address.password = "not-the-password"
        await #expect {
            try await PostgresStore.open(address)
        } throws: { error in
            let sentence = "\(error)"
            return sentence.hasPrefix("cannot open the store \(address): ") && sentence.contains("password authentication failed")
                && !sentence.contains("not-the-password")
        }
    }
}
