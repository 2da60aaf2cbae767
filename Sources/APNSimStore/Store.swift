import Foundation
import GRDB

/// apnsim's record of what happened: SQLite through GRDB, in memory unless a file is named.
public final class Store: Sendable {
    private let database: DatabaseQueue

    /// Opens (and migrates) the store.
    /// - Parameter path: a SQLite file, created if absent; `nil` keeps everything in memory.
    public init(path: String? = nil) throws {
        if let path {
            database = try DatabaseQueue(path: path)
        } else {
            database = try DatabaseQueue()
        }
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-sends") { db in
            try db.create(table: "sends") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("receivedAt", .double).notNull().indexed()  // seconds since 1970
                table.column("environment", .text).notNull()
                table.column("authMode", .text).notNull()
                table.column("method", .text).notNull()
                table.column("path", .text).notNull()
                table.column("token", .text).indexed()
                table.column("topic", .text)
                table.column("pushType", .text)
                table.column("apnsID", .text).notNull()
                table.column("headers", .jsonText).notNull()
                table.column("payload", .text)
                table.column("payloadBytes", .integer).notNull()
                table.column("status", .integer).notNull()
                table.column("reason", .text)
                table.column("explanation", .text)
                table.column("durationMicros", .integer).notNull()
                table.column("teamID", .text)
                table.column("keyID", .text)
            }
        }
        return migrator
    }

    /// Inserts a batch in one transaction. `prepare` runs inside the write, so batches taken from a buffer there
    /// land in the order they were taken.
    func insertSends(_ prepare: () -> [SendRecord]) throws {
        try database.write { db in
            let insert = try db.cachedStatement(sql: Self.insertSQL)
            for record in prepare() {
                try record.insert(with: insert, in: db)
            }
        }
    }

    private static let insertSQL = "INSERT INTO sends (" + SendRecord.insertColumns.joined(separator: ", ") + ") VALUES ("
        + SendRecord.insertColumns.map { _ in "?" }.joined(separator: ", ") + ")"

    /// Sends matching `filter`, newest first.
    public func sends(matching filter: SendFilter) throws -> [SendRecord] {
        try database.read { db in
            var request = SendRecord.all()
            if let token = filter.token { request = request.filter(Column("token") == token.lowercased()) }
            if let topic = filter.topic { request = request.filter(Column("topic") == topic) }
            if let status = filter.status { request = request.filter(Column("status") == status) }
            if let since = filter.since { request = request.filter(Column("receivedAt") >= since.timeIntervalSince1970) }
            return try request.order(Column("id").desc).limit(filter.limit).fetchAll(db)
        }
    }

    public func sendCount() throws -> Int {
        try database.read { try SendRecord.fetchCount($0) }
    }

    /// Forgets every recorded send.
    public func deleteAllSends() throws {
        _ = try database.write { try SendRecord.deleteAll($0) }
    }
}
