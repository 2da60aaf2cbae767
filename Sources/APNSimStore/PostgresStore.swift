import APNSimRules
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import Synchronization

/// The ``Store`` gateway replicas share: PostgreSQL through postgres-nio's pooled client (docs/cluster.md).
///
/// Each batch a recorder hands it is one transaction of a few statements, whatever its size: the rows of a kind go to
/// the server as one JSON array that `json_to_recordset` spreads into rows (a round trip per kind of event, not per
/// event). Times are seconds since 1970, as in SQLite.
public final class PostgresStore: Store {
    let logger: Logger
    public let address: PostgresAddress

    public var isDurable: Bool { true }
    public var isShared: Bool { true }

    /// Kept by ``watch()``: one connection of the store's own, whose end says the server went away.
    public var health: StoreHealth? { watched }
    private let watched = StoreHealth()

    /// The pool queries go through, and the task that runs it; replaced when the server is back after being away.
    private let pool: Mutex<(client: PostgresClient, running: Task<Void, Never>)>
    private let watching = Mutex<Task<Void, Never>?>(nil)

    /// The replica this gateway is (``join(as:)``); `""` for one that did not say.
    var replica: String { joined.withLock { $0 } }
    let joined = Mutex("")
    /// The watch connection while it is up: the one that holds this replica's ownership lock (``lockOwnership(on:)``).
    let watchConnection = Mutex<PostgresConnection?>(nil)

    /// What the watch connection hears of the other replicas (``ReplicaStore``).
    public let replicaEvents: AsyncStream<ReplicaEvent>
    let told: AsyncStream<ReplicaEvent>.Continuation

    var client: PostgresClient { pool.withLock { $0.client } }

    private init(address: PostgresAddress, logger: Logger) throws {
        self.logger = logger
        self.address = address
        pool = Mutex(try Self.startPool(address, logger: logger))
        (replicaEvents, told) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// A new pool, its run task started.
    private static func startPool(_ address: PostgresAddress, logger: Logger) throws -> (client: PostgresClient, running: Task<Void, Never>) {
        var configuration = PostgresClient.Configuration(host: address.host, port: address.port, username: address.user,
                                                         password: address.password, database: address.database,
                                                         tls: try tls(address.tls).client)
        configuration.options.connectTimeout = .seconds(10)
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return (client, Task { await client.run() })
    }

    /// Holds one connection to the server for as long as the store is open, listening on it for what the other
    /// replicas tell (``listen(on:)``); while it is gone (the server stopped or out of reach), ``health`` says so, and
    /// a new one is tried every half second. The pool finds out only when a query
    /// waits for a connection, after it has tried for a minute, and then refuses every query for as long again (its
    /// circuit breaker): so when the server is back, the pool is replaced by a new one, and what was put back while it
    /// was away is written at once.
    private func watch() async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: try Self.connectionConfiguration(address), id: 1, logger: logger)
                if watched.problem != nil {
                    logger.notice("the store answers again", metadata: ["store": "\(address)"])
                    replacePool()
                }
                watched.set(nil)
                watchConnection.withLock { $0 = connection }
                defer { watchConnection.withLock { $0 = nil } }
                await withTaskCancellationHandler {
                    do {
                        try await listen(on: connection)
                    } catch {
                        logger.debug("stopped listening", metadata: ["store": "\(address)", "error": "\(Self.describe(error))"])
                    }
                    try? await connection.close()
                } onCancel: {
                    let closing: EventLoopFuture<Void> = connection.close()
                    _ = closing
                }
                guard !Task.isCancelled else { return }
                watched.set("the store \(address) closed its connection")
                logger.error("the store closed its connection", metadata: ["store": "\(address)"])
            } catch {
                if watched.problem == nil { logger.error("the store does not answer", metadata: ["store": "\(address)", "error": "\(Self.describe(error))"]) }
                watched.set("the store \(address) does not answer: \(Self.describe(error))")
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }

    private func replacePool() {
        guard let fresh = try? Self.startPool(address, logger: logger) else { return }
        let old = pool.withLock { pool in
            defer { pool = fresh }
            return pool.running
        }
        old.cancel()
    }

    static func connectionConfiguration(_ address: PostgresAddress) throws -> PostgresConnection.Configuration {
        .init(host: address.host, port: address.port, username: address.user, password: address.password,
              database: address.database, tls: try tls(address.tls).connection)
    }

    /// Connects to `address`, creates apnsim's tables unless they are there (once, however many replicas start at
    /// once), and returns the store; throws a sentence naming the address when the server does not answer or refuses.
    public static func open(_ address: PostgresAddress, logger: Logger = Logger(label: "apnsim.store")) async throws -> PostgresStore {
        // One connection of its own first: a server out of reach or a refused user is one sentence now, where the pool
        // would keep trying to connect and a query wait for it; it migrates the schema, and the pool starts after.
        do {
            let connection = try await PostgresConnection.connect(configuration: try connectionConfiguration(address), id: 0, logger: logger)
            do {
                try await PostgresSchema.migrate(connection, logger: logger)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch let error as StoreAddressError {
            throw error
        } catch {
            throw StoreAddressError("cannot open the store \(address): \(Self.describe(error))")
        }
        let store = try PostgresStore(address: address, logger: logger)
        store.watching.withLock { $0 = Task { await store.watch() } }
        return store
    }

    /// What went wrong, in PostgreSQL's words when the server said it (a refused password, a missing database).
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)" + (error.underlying.map { ": \($0)" } ?? "")
        }
        return "\(error)"
    }

    /// Stops the watch and the pool: their connections close.
    public func close() {
        told.finish()
        watching.withLock { $0?.cancel() }
        pool.withLock { $0.running.cancel() }
    }

    /// libpq's `sslmode` as the pool and a single connection take it.
    private static func tls(_ mode: PostgresAddress.TLSMode) throws
        -> (client: PostgresClient.Configuration.TLS, connection: PostgresConnection.Configuration.TLS)
    {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        let verified = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable: return (.disable, .disable)
        case .prefer: return (.prefer(unverified), .prefer(try NIOSSLContext(configuration: unverified)))
        case .require: return (.require(unverified), .require(try NIOSSLContext(configuration: unverified)))
        case .verifyFull: return (.require(verified), .require(try NIOSSLContext(configuration: verified)))
        }
    }

    // MARK: Sends

    public func insertSends(_ sends: [SendRecord]) async throws {
        guard !sends.isEmpty else { return }
        let rows = PostgresRows.json(sends.map(PostgresRows.Send.init))
        let told = ReplicaEvent.recorded(.sends, replica: replica).payload
        // The other replicas' long-polls and event streams are told once the rows are in (one statement, one commit).
        try await client.query("""
            WITH inserted AS (
                INSERT INTO sends (received_at, token, topic, apns_id, unique_id, status, record)
                SELECT received_at, token, topic, apns_id, unique_id, status, record
                FROM json_to_recordset(\(rows)::json) AS r(received_at double precision, token text, topic text, apns_id text,
                                                             unique_id text, status integer, record text)
                RETURNING 1)
            SELECT pg_notify(\(Self.notificationChannel), \(told))::text WHERE EXISTS (SELECT 1 FROM inserted)
            """, logger: logger)
    }

    public func trimSends(keeping: Int?, before: Date?) async throws -> Int {
        try await trim(table: "sends", order: "id", time: "received_at", keeping: keeping, before: before)
    }

    public func sends(matching filter: SendFilter) async throws -> [SendRecord] {
        var query = PostgresFilter()
        query.equal("token", filter.token?.lowercased())
        query.equal("topic", filter.topic)
        query.equal("apns_id", filter.apnsID)
        query.equal("unique_id", filter.uniqueID?.lowercased())
        query.equal("status", filter.status)
        query.compare("received_at", ">", filter.after)
        query.compare("received_at", "<", filter.before)
        query.compare("received_at", ">=", filter.since)
        let rows = try await client.query(query.select("id, record", from: "sends", order: "id DESC", limit: filter.limit), logger: logger)
        var sends: [SendRecord] = []
        for try await (id, record) in rows.decode((Int64, String).self) {
            var send = try RecordJSON.decoder.decode(SendRecord.self, from: Data(record.utf8))
            send.id = id
            sends.append(send)
        }
        return sends
    }

    public func sendCount() async throws -> Int {
        try await count("SELECT count(*) FROM sends")
    }

    public func deleteAllSends() async throws {
        try await client.query("DELETE FROM sends", logger: logger)
    }

    // MARK: Interactions and summaries

    /// One met again is written anew, last in the record's order (a new `seq`), as SQLite's INSERT OR REPLACE does.
    /// The other replicas are told as of a delivery batch: an interaction is a delivery's sequel, and their
    /// `GET /v1/interactions?wait=` waits on the deliveries' signal.
    public func record(_ interaction: InteractionRecord, token: String?) async throws {
        let json = String(decoding: try RecordJSON.encoder.encode(interaction), as: UTF8.self)
        let told = ReplicaEvent.recorded(.deliveries, replica: replica).payload
        try await client.query("""
            WITH written AS (
                INSERT INTO interactions (id, device, bundle_id, apns_id, token, at, record)
                VALUES (\(interaction.id), \(interaction.device), \(interaction.bundleID), \(interaction.apnsID), \(token?.lowercased()),
                        \(interaction.at.timeIntervalSince1970), \(json))
                ON CONFLICT (id) DO UPDATE SET device = excluded.device, bundle_id = excluded.bundle_id, apns_id = excluded.apns_id,
                    token = excluded.token, at = excluded.at, record = excluded.record, seq = DEFAULT
                RETURNING 1)
            SELECT pg_notify(\(Self.notificationChannel), \(told))::text FROM written
            """, logger: logger)
    }

    public func interactions(matching filter: InteractionFilter) async throws -> [InteractionRecord] {
        var query = PostgresFilter()
        query.equal("device", filter.device)
        query.equal("token", filter.token?.lowercased())
        query.equal("bundle_id", filter.bundleID)
        query.equal("apns_id", filter.apnsID)
        return try await records(query.select("record", from: "interactions", order: "at, seq", limit: filter.limit))
    }

    public func record(_ summary: SummaryDelivery) async throws {
        let json = String(decoding: try RecordJSON.encoder.encode(summary), as: UTF8.self)
        try await client.query("""
            INSERT INTO summaries (id, device, at, record) VALUES (\(summary.id), \(summary.device), \(summary.at.timeIntervalSince1970), \(json))
            ON CONFLICT (id) DO UPDATE SET device = excluded.device, at = excluded.at, record = excluded.record, seq = DEFAULT
            """, logger: logger)
    }

    public func summaries(device: String?, limit: Int) async throws -> [SummaryDelivery] {
        var query = PostgresFilter()
        query.equal("device", device)
        return try await records(query.select("record", from: "summaries", order: "at, seq", limit: limit))
    }

    // MARK: Shared

    /// The JSON records `query` selects, decoded.
    func records<Record: Decodable>(_ query: PostgresQuery) async throws -> [Record] {
        var records: [Record] = []
        for try await text in try await client.query(query, logger: logger).decode(String.self) {
            records.append(try RecordJSON.decoder.decode(Record.self, from: Data(text.utf8)))
        }
        return records
    }

    func count(_ query: PostgresQuery) async throws -> Int {
        var total = 0
        for try await count in try await client.query(query, logger: logger).decode(Int.self) { total = count }
        return total
    }

    /// One `DELETE` for the count (everything up to the row `keeping` places from the newest by `order`) and one for
    /// the age, in one transaction; returns how many rows went.
    func trim(table: String, order: String, time: String, keeping: Int?, before: Date?) async throws -> Int {
        try await client.withTransaction(logger: logger) { connection in
            var removed = 0
            if let keeping {
                removed += try await Self.deleted(connection.query(PostgresQuery(
                    unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE \(order) <= (SELECT \(order) FROM \(table) ORDER BY \(order) DESC LIMIT 1 OFFSET $1) RETURNING 1) SELECT count(*) FROM gone",
                    binds: PostgresFilter.bindings(keeping)), logger: logger))
            }
            if let before {
                removed += try await Self.deleted(connection.query(PostgresQuery(
                    unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE \(time) < $1 RETURNING 1) SELECT count(*) FROM gone",
                    binds: PostgresFilter.bindings(before.timeIntervalSince1970)), logger: logger))
            }
            return removed
        }
    }

    private static func deleted(_ rows: PostgresRowSequence) async throws -> Int {
        var total = 0
        for try await count in rows.decode(Int.self) { total = count }
        return total
    }
}
