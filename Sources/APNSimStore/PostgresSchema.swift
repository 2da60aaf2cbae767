import Logging
import PostgresNIO

/// The tables gateway replicas share on PostgreSQL: SQLite's (``SQLiteStore/migrator``) as they are now, with names
/// in PostgreSQL's lower case and times in seconds since 1970 as SQLite keeps them (so both stores compare and trim
/// alike). `seq` keeps the order rows were recorded in, as SQLite's `rowid` does.
enum PostgresSchema {
    /// The schema's version; a database at an older one is migrated once, whichever replica gets there first.
    static var version: Int { migrations.count }

    /// The key of the transaction-scoped advisory lock the migration holds (PostgreSQL, "Advisory Locks",
    /// https://www.postgresql.org/docs/current/explicit-locking.html#ADVISORY-LOCKS): replicas started at once wait
    /// on it, and each but the first then finds the schema current and changes nothing.
    static let migrationLock: Int64 = 0x6170_6e73_696d_0001  // "apnsim" and 1

    /// Each version's statements, from the one before it: a database at version `n` runs `migrations[n...]`.
    static let migrations = [tables, replicas, storedByDevice, broadcasts, connections]

    static let tables = [
        """
        CREATE TABLE sends (
            id bigserial PRIMARY KEY,
            received_at double precision NOT NULL,
            token text, topic text, apns_id text NOT NULL, unique_id text, status integer NOT NULL,
            record text NOT NULL)
        """,
        """
        CREATE TABLE deliveries (
            seq bigserial UNIQUE,
            id text PRIMARY KEY,
            apns_id text NOT NULL, unique_id text, device text NOT NULL, bundle_id text NOT NULL, token text NOT NULL,
            push_type text NOT NULL, outcome text, content text, detail text,
            accepted_at double precision NOT NULL, delivered_at double precision, displayed_at double precision,
            extension text, presentation text, activity text, stored_at double precision, stored_for text)
        """,
        "CREATE INDEX deliveries_device ON deliveries (device)",
        "CREATE INDEX deliveries_token ON deliveries (token)",
        "CREATE INDEX deliveries_accepted ON deliveries (accepted_at, seq)",
        """
        CREATE TABLE device_registrations (
            token text PRIMARY KEY, device text NOT NULL, bundle_id text NOT NULL, environment text NOT NULL,
            unregistered_from double precision)
        """,
        """
        CREATE TABLE held_pushes (
            seq bigserial UNIQUE, id text PRIMARY KEY, device text NOT NULL, slot text, expires double precision,
            delivery text NOT NULL)
        """,
        "CREATE INDEX held_pushes_slot ON held_pushes (slot)",
        """
        CREATE TABLE interactions (
            seq bigserial UNIQUE, id text PRIMARY KEY, device text NOT NULL, bundle_id text NOT NULL, apns_id text NOT NULL,
            token text, at double precision NOT NULL, record text NOT NULL)
        """,
        "CREATE INDEX interactions_device ON interactions (device)",
        """
        CREATE TABLE summaries (
            seq bigserial UNIQUE, id text PRIMARY KEY, device text NOT NULL, at double precision NOT NULL, record text NOT NULL)
        """,
    ]

    /// Version 2: the replicas and where their control APIs answer, which replica each device is linked to, the pushes
    /// handed from one replica to another (``ReplicaStore``), and which replica holds each held push.
    static let replicas = [
        "CREATE TABLE device_links (device text PRIMARY KEY, replica text NOT NULL, linked_at double precision NOT NULL)",
        "CREATE TABLE handoffs (seq bigserial PRIMARY KEY, replica text NOT NULL, device text NOT NULL, push text NOT NULL)",
        "CREATE INDEX handoffs_replica ON handoffs (replica, seq)",
        "CREATE TABLE replicas (name text PRIMARY KEY, control text NOT NULL, started_at double precision NOT NULL)",
        // Each replica's held pushes are its own: a replica restarted takes back its own alone.
        "ALTER TABLE held_pushes ADD COLUMN replica text NOT NULL DEFAULT ''",
    ]

    /// Version 3: held pushes found by device, as the replica a device links to claims what any replica stored for it.
    static let storedByDevice = [
        "CREATE INDEX held_pushes_device ON held_pushes (device)",
    ]

    /// Version 4: broadcast channels, and the broadcasts one replica shares with the others to fan out to their devices
    /// (``SharedBroadcast``): kept a few minutes, and a channel's stored message until it expires.
    static let broadcasts = [
        """
        CREATE TABLE channels (
            id text PRIMARY KEY, bundle_id text NOT NULL, environment text NOT NULL, storage_policy integer NOT NULL,
            created_at double precision NOT NULL)
        """,
        """
        CREATE TABLE broadcasts (
            seq bigserial PRIMARY KEY, replica text NOT NULL, channel text NOT NULL, accepted_at double precision NOT NULL,
            stored_until double precision, broadcast text NOT NULL)
        """,
        "CREATE INDEX broadcasts_channel ON broadcasts (channel, seq)",
    ]

    /// Version 5: the provider connections a replica refused or closed (``ConnectionRecord``), kept whole as JSON.
    static let connections = [
        """
        CREATE TABLE connections (
            seq bigserial UNIQUE, id text PRIMARY KEY, at double precision NOT NULL, event text NOT NULL, reason text,
            environment text NOT NULL, record text NOT NULL)
        """,
    ]

    /// Creates the tables unless the database has them: in one transaction, under ``migrationLock``. A database a newer
    /// apnsim migrated is refused with a sentence rather than written in a form it does not know.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS apnsim_schema (version integer NOT NULL)", logger: logger)
            var found: Int?
            for try await version in try await connection.query("SELECT max(version) FROM apnsim_schema", logger: logger).decode(Int?.self) {
                found = version
            }
            let current = found ?? 0
            if current > version {
                throw StoreAddressError("the database holds apnsim's schema version \(current), newer than this apnsim's \(version): "
                                        + "run the apnsim that wrote it, or give this one a database of its own")
            }
            guard current < version else { return }
            for statement in migrations[current...].joined() {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query("DELETE FROM apnsim_schema", logger: logger)
            try await connection.query("INSERT INTO apnsim_schema (version) VALUES (\(version))", logger: logger)
            logger.info("migrated apnsim's tables", metadata: ["from": "\(current)", "schema": "\(version)"])
        }
    }
}
