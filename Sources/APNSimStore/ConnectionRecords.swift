import Foundation
import GRDB
import PostgresNIO

extension SQLiteStore {
    public func insertConnections(_ connections: [ConnectionRecord]) throws {
        let rows = try connections.map { ($0, String(decoding: try RecordJSON.encoder.encode($0), as: UTF8.self)) }
        try database.write { db in
            for (record, json) in rows {
                try db.execute(sql: "INSERT OR REPLACE INTO connections (id, at, event, reason, environment, record) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [record.id, record.at.timeIntervalSince1970, record.event.rawValue, record.reason,
                                           record.environment, json])
            }
        }
    }

    public func trimConnections(keeping: Int?, before: Date?) throws -> Int {
        try trim(table: "connections", order: "rowid", time: "at", keeping: keeping, before: before)
    }

    public func connections(matching filter: ConnectionFilter) throws -> [ConnectionRecord] {
        var conditions: [String] = [], arguments: [(any DatabaseValueConvertible)?] = []
        for (column, value) in [("event", filter.event?.rawValue), ("reason", filter.reason), ("environment", filter.environment)] {
            guard let value else { continue }
            conditions.append("\(column) = ?")
            arguments.append(value)
        }
        for (operation, date) in [(">", filter.after), ("<", filter.before)] {
            guard let date else { continue }
            conditions.append("at \(operation) ?")
            arguments.append(date.timeIntervalSince1970)
        }
        let side = filter.newestFirst ? "<" : ">", order = filter.newestFirst ? "at DESC, rowid DESC" : "at, rowid"
        if let cursor = filter.cursor {
            conditions.append("(at, rowid) \(side) (SELECT at, rowid FROM connections WHERE id = ?)")
            arguments.append(cursor)
        }
        arguments.append(filter.limit)
        let sql = "SELECT record FROM connections" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY \(order) LIMIT ?"
        let rows = try database.read { db in try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
        return try rows.map { try RecordJSON.decoder.decode(ConnectionRecord.self, from: Data($0.utf8)) }
    }

    public func connectionCount() throws -> Int {
        try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM connections") ?? 0 }
    }

    public func deleteAllConnections() throws {
        try database.write { try $0.execute(sql: "DELETE FROM connections") }
    }
}

extension PostgresStore {
    /// The other replicas' long-polls are told once the rows are in, as for sends.
    public func insertConnections(_ connections: [ConnectionRecord]) async throws {
        guard !connections.isEmpty else { return }
        let json = PostgresRows.json(try connections.map(PostgresRows.Connection.init))
        let told = ReplicaEvent.recorded(.connections, replica: replica).payload
        try await client.query("""
            WITH inserted AS (
                INSERT INTO connections (id, at, event, reason, environment, record)
                SELECT id, at, event, reason, environment, record
                FROM json_to_recordset(\(json)::json) AS r(id text, at double precision, event text, reason text, environment text,
                                                           record text)
                ON CONFLICT (id) DO NOTHING
                RETURNING 1)
            SELECT pg_notify(\(Self.notificationChannel), \(told))::text WHERE EXISTS (SELECT 1 FROM inserted)
            """, logger: logger)
    }

    public func trimConnections(keeping: Int?, before: Date?) async throws -> Int {
        try await trim(table: "connections", order: "seq", time: "at", keeping: keeping, before: before)
    }

    public func connections(matching filter: ConnectionFilter) async throws -> [ConnectionRecord] {
        var query = PostgresFilter()
        query.equal("event", filter.event?.rawValue)
        query.equal("reason", filter.reason)
        query.equal("environment", filter.environment)
        query.compare("at", ">", filter.after)
        query.compare("at", "<", filter.before)
        let side = filter.newestFirst ? "<" : ">", order = filter.newestFirst ? "at DESC, seq DESC" : "at, seq"
        if let cursor = filter.cursor {
            query.add("(at, seq) \(side) (SELECT at, seq FROM connections WHERE id = \(query.parameter(cursor)))")
        }
        return try await records(query.select("record", from: "connections", order: order, limit: filter.limit))
    }

    public func connectionCount() async throws -> Int {
        try await count("SELECT count(*) FROM connections")
    }

    public func deleteAllConnections() async throws {
        try await client.query("DELETE FROM connections", logger: logger)
    }
}
