import APNSimStore
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL server the store's conformance suite also runs against, when `APNSIM_TEST_POSTGRES` names one
/// (`postgres://USER[:PASSWORD]@HOST:PORT/DATABASE`; `.ci/run` starts Debian's and sets it). Each test gets a database
/// of its own, created from that one and dropped afterwards, so tests run side by side.
enum TestPostgres {
    static let address: PostgresAddress? = ProcessInfo.processInfo.environment["APNSIM_TEST_POSTGRES"].flatMap { try? PostgresAddress($0) }

    /// Whether a server is named; the tests that need one are skipped without it.
    static var isConfigured: Bool { address != nil }

    /// A new, empty database's address on the server.
    static func freshDatabase() async throws -> PostgresAddress {
        guard var address else { throw CancellationError() }
        let name = "apnsim_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await administer(address) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        address.database = name
        return address
    }

    /// A fresh database's store; `body` runs with it, and the database is dropped after.
    static func withStore<Result>(_ body: (PostgresStore, PostgresAddress) async throws -> Result) async throws -> Result {
        let database = try await freshDatabase()
        let store = try await PostgresStore.open(database)
        do {
            let result = try await body(store, database)
            store.close()
            try await drop(database)
            return result
        } catch {
            store.close()
            try? await drop(database)
            throw error
        }
    }

    static func drop(_ database: PostgresAddress) async throws {
        guard let address else { return }
        try await administer(address) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database.database) WITH (FORCE)"), logger: logger)
        }
    }

    /// The integers the first column of `sql` holds, read from `database`.
    static func integers(_ sql: String, in database: PostgresAddress) async throws -> [Int] {
        var found: [Int] = []
        try await administer(database) { connection in
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
                found.append(value)
            }
        }
        return found
    }

    /// Runs `statements` on `database`, in order.
    static func execute(_ statements: [String], in database: PostgresAddress) async throws {
        try await administer(database) { connection in
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
    }

    /// Ends the server sessions that hold replica `name`'s ownership lock, as a killed replica's end, and returns once
    /// their processes have exited and the lock is free: `pg_terminate_backend` with a timeout waits for that
    /// (PostgreSQL, "Server Signaling Functions"). A bigint advisory key is split over `classid` (high) and `objid` (low).
    static func endSessions(ofReplica name: String, in database: PostgresAddress) async throws {
        try await execute(["""
            SELECT pg_terminate_backend(pid, 600000) FROM pg_locks
            WHERE locktype = 'advisory' AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('apnsim-replica:\(name)', 0)
            """], in: database)
    }

    private static let logger = Logger(label: "apnsim.test-postgres")

    private static func administer(_ address: PostgresAddress, _ body: (PostgresConnection) async throws -> Void) async throws {
        let configuration = PostgresConnection.Configuration(host: address.host, port: address.port, username: address.user,
                                                             password: address.password, database: address.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
