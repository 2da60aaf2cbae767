import APNSimRules
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What replicas share on PostgreSQL beside the record: `device_links` and `handoffs` (written by ``apply(_:)`` with
/// the record, ``DeliveryRuns``), and word of their changes by `NOTIFY` on ``notificationChannel``, which ``watch()``'s connection listens to (PostgreSQL, "NOTIFY",
/// https://www.postgresql.org/docs/current/sql-notify.html). A notification is sent when its transaction commits, and
/// carries only what changed and for whom: never a push.
extension PostgresStore: ReplicaStore {
    static let notificationChannel = "apnsim_cluster"

    public func join(as replica: String) {
        joined.withLock { $0 = replica }
        if let connection = watchConnection.withLock({ $0 }) { Task { await lockOwnership(on: connection) } }
    }

    /// The key of the advisory lock replica `name` holds while it lives (``lockOwnership(on:)``), as SQL.
    private static func ownership(_ name: String) -> String {
        "hashtextextended('apnsim-replica:' || \(name), 0)"
    }

    /// Takes this replica's ownership lock on `connection` (session-level: PostgreSQL releases it when the connection
    /// ends, the process killed or the server gone), so the others can tell it lives (``claimOrphans()``). Taken again on
    /// each connection the watch opens; a lock already held by a live replica of the same name is said in the log.
    func lockOwnership(on connection: PostgresConnection) async {
        let name = replica
        guard !name.isEmpty else { return }
        do {
            var taken = false
            for try await got in try await connection.query("SELECT pg_try_advisory_lock(hashtextextended('apnsim-replica:' || \(name), 0))",
                                                             logger: logger).decode(Bool.self) { taken = got }
            if !taken {
                logger.error("another replica is running under this replica's name: give each its own (--replica)",
                             metadata: ["replica": "\(name)"])
            }
        } catch {
            logger.debug("cannot take the replica's ownership lock", metadata: ["error": "\(Self.describe(error))"])
        }
    }

    public func claimOrphans() async throws -> [String] {
        let me = replica
        guard !me.isEmpty else { return [] }
        return try await client.withTransaction(logger: logger) { connection in
            // A replica whose ownership lock is free has no connection: it is gone (killed, or its host). The
            // transaction's lock on its key keeps it, were it to start again meanwhile, waiting until this is done.
            var dead: [String] = []
            // The replicas that announced themselves, and those pushes are still handed to: one handed to a replica
            // after another took over what it left (its name gone from `replicas`) is taken over too.
            for try await name in try await connection.query("""
                SELECT name FROM (SELECT name FROM replicas UNION SELECT replica FROM handoffs) known
                WHERE name <> \(me) AND pg_try_advisory_xact_lock(hashtextextended('apnsim-replica:' || name, 0))
                """, logger: logger).decode(String.self) { dead.append(name) }
            for name in dead {
                // Its held pushes become pushes handed to this replica, in one transaction: never in neither place.
                try await connection.query(PostgresQuery(unsafeSQL: DeliveryRuns.handOver("""
                    DELETE FROM held_pushes WHERE replica = $2 RETURNING seq, device, expires, delivery, $1::text AS handed_to
                    """), binds: PostgresFilter.bindings(me, name)), logger: logger)
                try await connection.query("UPDATE handoffs SET replica = \(me) WHERE replica = \(name)", logger: logger)
                try await connection.query("""
                    WITH gone AS (DELETE FROM device_links WHERE replica = \(name) RETURNING device, replica)
                    SELECT pg_notify(\(Self.notificationChannel), 'unlink ' || replica || ' ' || device)::text FROM gone
                    """, logger: logger)
                try await connection.query("DELETE FROM replicas WHERE name = \(name)", logger: logger)
                logger.notice("took over the pushes of a replica that is gone", metadata: ["replica": "\(name)"])
            }
            return dead
        }
    }

    public func announce(control: String, at date: Date) async throws {
        try await client.query("""
            INSERT INTO replicas (name, control, started_at) VALUES (\(replica), \(control), \(date.timeIntervalSince1970))
            ON CONFLICT (name) DO UPDATE SET control = excluded.control, started_at = excluded.started_at
            """, logger: logger)
    }

    public func controlAddresses() async throws -> [String: String] {
        try await dictionary("SELECT name, control FROM replicas")
    }

    public func links() async throws -> [String: String] {
        try await dictionary("SELECT device, replica FROM device_links")
    }

    /// The two text columns `query` reads, the first keying the second.
    private func dictionary(_ query: PostgresQuery) async throws -> [String: String] {
        var read: [String: String] = [:]
        for try await (key, value) in try await client.query(query, logger: logger).decode((String, String).self) { read[key] = value }
        return read
    }

    public func handOffs(for replica: String) async throws -> [HandOff] {
        try await handOffs(for: replica, after: 0)
    }

    public func handOffs(for replica: String, after row: Int64) async throws -> [HandOff] {
        try await decoded("SELECT seq, push FROM handoffs WHERE replica = \(replica) AND seq > \(row) ORDER BY seq", row: \HandOff.row)
    }

    public func handOffs(for replica: String, rows: [Int64]) async throws -> [HandOff] {
        try await decoded("SELECT seq, push FROM handoffs WHERE replica = \(replica) AND seq = ANY(\(rows)) ORDER BY seq", row: \HandOff.row)
    }

    public func handOffRows(for replica: String) async throws -> [Int64] {
        var rows: [Int64] = []
        for try await seq in try await client.query("SELECT seq FROM handoffs WHERE replica = \(replica) ORDER BY seq",
                                                    logger: logger).decode(Int64.self) { rows.append(seq) }
        return rows
    }

    /// The rows `query` reads (a `seq`, then a value's JSON), each value decoded with its `seq` as `row`.
    private func decoded<Value: Decodable>(_ query: PostgresQuery, row: WritableKeyPath<Value, Int64?>) async throws -> [Value] {
        var values: [Value] = []
        for try await (seq, text) in try await client.query(query, logger: logger).decode((Int64, String).self) {
            var value = try RecordJSON.decoder.decode(Value.self, from: Data(text.utf8))
            value[keyPath: row] = seq
            values.append(value)
        }
        return values
    }

    public func registration(of token: DeviceToken) async throws -> (registration: DeviceRegistration, replica: String?)? {
        try await registrations("r.token = \(token.hex)").first
    }

    public func removedRegistrations() async throws -> [DeviceRegistration] {
        try await registrations("r.unregistered_from IS NOT NULL").map(\.registration)
    }

    /// The registrations `condition` selects (on `r`, `device_registrations`), each with the replica its device is
    /// linked to; one of an environment this apnsim does not know is left out.
    private func registrations(_ condition: PostgresQuery) async throws -> [(registration: DeviceRegistration, replica: String?)] {
        let rows = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT r.token, r.device, r.bundle_id, r.environment, r.unregistered_from, l.replica
            FROM device_registrations r LEFT JOIN device_links l ON l.device = (r.device::json ->> 'id')
            WHERE \(condition.sql)
            """, binds: condition.binds), logger: logger)
        var found: [(DeviceRegistration, String?)] = []
        for try await (token, device, bundleID, environment, unregisteredFrom, replica) in rows.decode((String, String, String, String, Double?, String?).self) {
            guard let token = DeviceToken(token), let environment = APNsEnvironment(rawValue: environment) else { continue }
            let registration = DeviceRegistration(
                token: token, device: try RecordJSON.decoder.decode(DeviceDescriptor.self, from: Data(device.utf8)),
                bundleID: bundleID, environment: environment, unregisteredFrom: unregisteredFrom.map(Date.init(timeIntervalSince1970:)))
            found.append((registration, replica))
        }
        return found
    }

    public func channels() async throws -> [BroadcastChannel] {
        try await channels("TRUE")
    }

    public func channel(_ id: String) async throws -> BroadcastChannel? {
        try await channels("id = \(id)").first
    }

    /// The channels `condition` selects; one of an environment or policy this apnsim does not know is left out.
    private func channels(_ condition: PostgresQuery) async throws -> [BroadcastChannel] {
        let rows = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT id, bundle_id, environment, storage_policy, created_at FROM channels WHERE \(condition.sql) ORDER BY created_at, id
            """, binds: condition.binds), logger: logger)
        var found: [BroadcastChannel] = []
        for try await (id, bundleID, environment, policy, createdAt) in rows.decode((String, String, String, Int, Double).self) {
            guard let environment = APNsEnvironment(rawValue: environment),
                  let policy = BroadcastChannel.StoragePolicy(rawValue: policy) else { continue }
            found.append(BroadcastChannel(id: id, bundleID: bundleID, environment: environment, storagePolicy: policy,
                                          createdAt: Date(timeIntervalSince1970: createdAt)))
        }
        return found
    }

    public func broadcasts(after row: Int64) async throws -> [SharedBroadcast] {
        try await decoded("SELECT seq, broadcast FROM broadcasts WHERE seq > \(row) ORDER BY seq", row: \SharedBroadcast.row)
    }

    /// Tells the replicas listening `event` when the transaction `connection` is in commits (at once outside one).
    static func tell(_ event: ReplicaEvent, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(notificationChannel), \(event.payload))::text", logger: logger)
    }

    /// Listens on `connection` until it closes, telling ``replicaEvents`` what it hears: ``ReplicaEvent/listening``
    /// first, once the server has the `LISTEN`.
    func listen(on connection: PostgresConnection) async throws {
        await lockOwnership(on: connection)
        try await connection.listen(on: Self.notificationChannel) { notifications in
            told.yield(.listening)
            for try await notification in notifications {
                if let event = ReplicaEvent(payload: notification.payload) { told.yield(event) }
            }
        }
    }
}
