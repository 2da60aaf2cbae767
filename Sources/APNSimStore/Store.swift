import APNSimRules
import Foundation
import GRDB

/// apnsim's record of what happened: SQLite through GRDB, in memory unless a file is named.
public final class Store: Sendable {
    let database: DatabaseQueue

    /// Opens (and migrates) the store.
    /// - Parameter path: a SQLite file, created if absent; `nil` keeps everything in memory.
    public init(path: String? = nil) throws {
        if let path {
            // Write-ahead logging with synchronous=NORMAL: a commit is in the file (the OS has it) when it returns,
            // so a killed process loses nothing committed; only a power cut can lose the last commits, which is
            // not what a simulator's record guards against, and a full fsync per commit would cost most of the speed.
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            database = try DatabaseQueue(path: path, configuration: configuration)
        } else {
            database = try DatabaseQueue()
        }
        self.isFile = path != nil
        memoryDeliveries = path == nil ? MemoryDeliveries() : nil
        try Self.migrator.migrate(database)
    }

    /// Whether the record is kept in a file (and so survives the process).
    public let isFile: Bool

    /// The delivery record when nothing is kept in a file: Swift's own arrays and dictionaries, which answer as the
    /// file's `deliveries` table does at a fraction of a push's cost (docs/speed.md). `nil` for a file.
    private let memoryDeliveries: MemoryDeliveries?

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
        migrator.registerMigration("v2-deliveries") { db in
            try db.create(table: "deliveries") { table in
                table.primaryKey("id", .text)
                table.column("apnsId", .text).notNull()
                table.column("device", .text).notNull().indexed()
                table.column("bundleID", .text).notNull()
                table.column("token", .text).notNull().indexed()
                table.column("pushType", .text).notNull()
                table.column("outcome", .text)
                table.column("content", .jsonText)
                table.column("detail", .text)
                table.column("acceptedAt", .double).notNull().indexed()  // seconds since 1970
                table.column("deliveredAt", .double)
                table.column("displayedAt", .double)
            }
        }
        migrator.registerMigration("v3-device-state") { db in
            try db.create(table: "device_registrations") { table in
                table.primaryKey("token", .text)
                table.column("device", .jsonText).notNull()
                table.column("bundleID", .text).notNull()
                table.column("environment", .text).notNull()
            }
            try db.create(table: "held_pushes") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull()
                table.column("slot", .text).indexed()
                table.column("expires", .double)
                table.column("delivery", .jsonText).notNull()
            }
        }
        migrator.registerMigration("v4-unregistered-tokens") { db in
            try db.alter(table: "device_registrations") { table in
                table.add(column: "unregisteredFrom", .double)  // seconds since 1970; set when the app is removed
            }
        }
        migrator.registerMigration("v5-extension-runs") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "extension", .jsonText)
            }
        }
        migrator.registerMigration("v6-send-faults") { db in
            try db.alter(table: "sends") { table in
                table.add(column: "fault", .text)
            }
        }
        migrator.registerMigration("v7-presentation") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "presentation", .jsonText)  // group, thread, banner, list: where the device shows it
            }
            // Records written before devices said where a notification shows: what a device in the background says.
            try db.execute(sql: """
                UPDATE deliveries SET presentation = json_object(
                    'bundleID', bundleID, 'thread', nullif(json_extract(content, '$.threadID'), ''),
                    'banner', json('true'), 'list', json('true'))
                WHERE outcome IN ('displayed', 'replaced')
                  AND coalesce(json_extract(content, '$.title'), json_extract(content, '$.subtitle'),
                               json_extract(content, '$.body'), '') != ''
                """)
        }
        migrator.registerMigration("v8-activity-changes") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "activity", .jsonText)  // what a liveactivity push did to its activity
            }
        }
        migrator.registerMigration("v9-interactions") { db in
            try db.create(table: "interactions") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull().indexed()
                table.column("bundleID", .text).notNull()
                table.column("apnsId", .text).notNull().indexed()
                table.column("token", .text)
                table.column("at", .double).notNull()  // seconds since 1970
                table.column("record", .jsonText).notNull()  // the whole InteractionRecord
            }
        }
        migrator.registerMigration("v10-summaries") { db in
            try db.create(table: "summaries") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull().indexed()
                table.column("at", .double).notNull()  // seconds since 1970
                table.column("record", .jsonText).notNull()  // the whole SummaryDelivery
            }
        }
        migrator.registerMigration("v11-unique-ids") { db in
            // The apns-unique-id of each push, as Apple's Push Notifications Console finds a push by it.
            for table in ["sends", "deliveries"] {
                try db.alter(table: table) { $0.add(column: "uniqueId", .text) }
                try db.create(index: "\(table)_uniqueId", on: table, columns: ["uniqueId"])
            }
        }
        migrator.registerMigration("v12-stored") { db in
            // When and why the gateway stored a push: the Push Notifications Console's stored and from-storage states.
            try db.alter(table: "deliveries") { table in
                table.add(column: "storedAt", .double)
                table.add(column: "storedFor", .text)
            }
        }
        migrator.registerMigration("v13-no-unique-id-index") { db in
            // An index on a random UUID cost every insert a B-tree search: 3% of the gateway's CPU at 55,000 pushes a
            // second (perf, Benchmarks/provider.sh). Finding a push by its apns-unique-id is a person's question, asked
            // rarely, and a scan of the record's 100,000 rows answers it in milliseconds.
            for table in ["sends", "deliveries"] {
                try db.drop(index: "\(table)_uniqueId")
            }
        }
        migrator.registerMigration("v14-no-received-at-index") { db in
            // Every push paid for this index twice, on its insert and on its removal past the record limit: 7,000
            // instructions, 3% of the provider path (Benchmarks/instructions.sh). What it served, `GET /v1/sends?since=`
            // (read newest first by id, so a recent `since` stops early) and the age limit's delete once a second, scan
            // the record's 100,000 rows in milliseconds without it.
            try db.drop(index: "sends_on_receivedAt")
        }
        migrator.registerMigration("v15-no-send-token-index") { db in
            // Every push paid for this index twice too, on its insert and on its removal past the record limit: a
            // B-tree search on a random token each time (Benchmarks/instructions.sh, the provider path). A send is
            // looked up by its token when a person asks (`GET /v1/sends?token=`): with 100,000 sends recorded, the scan of a
            // token with none takes 40 ms. The deliveries keep theirs: tests and the sandbox's `curl` wait on a token's.
            try db.drop(index: "sends_on_token")
        }
        migrator.registerMigration("v16-apns-id-spelling") { db in
            // The send record's apns-id spelt as the delivery record and every query spell it, and its team as world
            // files name a team (README, "Changelog").
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN apnsID TO apnsId")
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN teamID TO team")
            // A presentation's thread is threadID, as the content's is; the old spelling stays beside it for one release.
            try db.execute(sql: """
                UPDATE deliveries SET presentation = json_set(presentation, '$.threadID', json_extract(presentation, '$.thread'))
                WHERE json_extract(presentation, '$.thread') IS NOT NULL AND json_extract(presentation, '$.threadID') IS NULL
                """)
        }
        return migrator
    }

    /// Inserts a batch in one transaction and returns its size. `prepare` runs inside the write, so batches taken
    /// from a buffer there land in the order they were taken.
    @discardableResult
    func insertSends(_ prepare: () -> [SendRecord]) throws -> Int {
        try database.write { db in
            let insert = try db.cachedStatement(sql: Self.insertSQL)
            let records = prepare()
            for record in records {
                try record.insert(with: insert, in: db)
            }
            return records.count
        }
    }

    /// Deletes all but the newest `keeping` sends, and those received before `before`; returns how many went.
    func trimSends(keeping: Int?, before: Date?) throws -> Int {
        try trim(table: "sends", order: "id", time: "receivedAt", keeping: keeping, before: before)
    }

    /// Deletes all but the newest `keeping` deliveries, and those accepted before `before`; returns how many went.
    func trimDeliveries(keeping: Int?, before: Date?) throws -> Int {
        if let memoryDeliveries { return memoryDeliveries.trim(keeping: keeping, before: before) }
        return try trim(table: "deliveries", order: "rowid", time: "acceptedAt", keeping: keeping, before: before)
    }

    /// One `DELETE` for the count (everything up to the row `keeping` places from the newest by `order`) and one
    /// for the age (`time` in seconds since 1970), in one transaction.
    private func trim(table: String, order: String, time: String, keeping: Int?, before: Date?) throws -> Int {
        try database.write { db in
            var removed = 0
            if let keeping {
                try db.execute(sql: "DELETE FROM \(table) WHERE \(order) <= (SELECT \(order) FROM \(table) ORDER BY \(order) DESC LIMIT 1 OFFSET ?)",
                               arguments: [keeping])
                removed += db.changesCount
            }
            if let before {
                try db.execute(sql: "DELETE FROM \(table) WHERE \(time) < ?", arguments: [before.timeIntervalSince1970])
                removed += db.changesCount
            }
            return removed
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
            if let apnsID = filter.apnsID { request = request.filter(Column("apnsId") == apnsID) }
            if let uniqueID = filter.uniqueID { request = request.filter(Column("uniqueId") == uniqueID.lowercased()) }
            if let status = filter.status { request = request.filter(Column("status") == status) }
            if let after = filter.after { request = request.filter(Column("receivedAt") > after.timeIntervalSince1970) }
            if let before = filter.before { request = request.filter(Column("receivedAt") < before.timeIntervalSince1970) }
            if let since = filter.since { request = request.filter(Column("receivedAt") >= since.timeIntervalSince1970) }
            return try request.order(Column("id").desc).limit(filter.limit).fetchAll(db)
        }
    }

    public func sendCount() throws -> Int {
        try database.read { try SendRecord.fetchCount($0) }
    }

    /// Applies delivery events in one transaction, in order, and returns the display latencies of the receipts among
    /// them (``AppliedDeliveries/displayLatencies``). In memory ``MemoryDeliveries`` applies them: what only a restart
    /// would read is never queued there (``DeliveryRecorder/record(contentsOf:)``), as nothing restarts from memory.
    func apply(_ events: [DeliveryEvent]) throws -> [Double] {
        guard let memoryDeliveries else { return try write(events) }
        return memoryDeliveries.apply(events)
    }

    private func write(_ events: [DeliveryEvent]) throws -> [Double] {
        guard !events.isEmpty else { return [] }
        return try database.write { db in
            var latencies: [Double] = []
            // The rows of every delivered push use cached statements: compiled once, not once per push, and looked up
            // once per batch (finding one hashes its SQL text: 3,000 instructions a push).
            var insert: Statement?, acknowledge: Statement?, receipt: Statement?
            func cached(_ statement: inout Statement?, _ sql: String) throws -> Statement {
                if let statement { return statement }
                let found = try db.cachedStatement(sql: sql)
                statement = found
                return found
            }
            for event in events {
                switch event {
                case .accepted(let record):
                    try record.insert(with: try cached(&insert, DeliveryRecord.insertSQL), in: db)
                case .acknowledged(let id, let at):
                    var row = StatementBinding(try cached(&acknowledge, "UPDATE deliveries SET deliveredAt = ? WHERE id = ? AND deliveredAt IS NULL"))
                    row.bind(at.timeIntervalSince1970); row.bind(id)
                    try row.run(in: db)
                case .stored(let id, let reason, let at, _):
                    try db.execute(sql: "UPDATE deliveries SET storedAt = COALESCE(storedAt, ?), storedFor = ? WHERE id = ?",
                                   arguments: [at.timeIntervalSince1970, reason.rawValue, id])
                case .forgotten(let id, let detail, let at):
                    try db.execute(sql: """
                        UPDATE deliveries SET outcome = 'dropped', detail = ?, deliveredAt = COALESCE(deliveredAt, ?), displayedAt = ?
                        WHERE id = ? AND outcome IS NULL
                        """, arguments: [detail, at.timeIntervalSince1970, at.timeIntervalSince1970, id])
                case .registered(let registration):
                    try registration.insert(db, onConflict: .replace)
                case .unregistered(let token, let at):
                    try db.execute(sql: "UPDATE device_registrations SET unregisteredFrom = ? WHERE token = ?",
                                   arguments: [at.timeIntervalSince1970, token.hex])
                case .held(let push):
                    if let slot = push.slot {
                        try db.execute(sql: "DELETE FROM held_pushes WHERE slot = ?", arguments: [slot])
                    }
                    try push.insert(db, onConflict: .replace)
                case .released(let id):
                    _ = try HeldPush.deleteOne(db, key: id)
                case .releasedAll:
                    _ = try HeldPush.deleteAll(db)
                case .receipt(let id, let outcome, let content, let detail, let at, let extensionRun, let presentation, let activity):
                    var row = StatementBinding(try cached(&receipt, DeliveryRecord.receiptSQL))
                    row.bind(outcome.rawValue); row.bind(content?.text); row.bind(detail); row.bind(at.timeIntervalSince1970)
                    row.bind(at.timeIntervalSince1970); row.bind(extensionRun?.text); row.bind(presentation?.text)
                    row.bind(activity?.text); row.bind(id)
                    let accepted = try row.runReturningNumber(in: db)
                    if outcome == .displayed, let accepted { latencies.append(at.timeIntervalSince1970 - accepted) }
                }
            }
            return latencies
        }
    }

    /// Deliveries matching `filter`, oldest first.
    public func deliveries(matching filter: DeliveryFilter) throws -> [DeliveryRecord] {
        if let memoryDeliveries { return memoryDeliveries.deliveries(matching: filter) }
        return try database.read { db in
            let request = Self.request(filter)
            if filter.newestFirst {
                return try request.order(Column("acceptedAt").desc, Column("rowid").desc).limit(filter.limit).fetchAll(db)
            }
            return try request.order(Column("acceptedAt"), Column("rowid")).limit(filter.limit).fetchAll(db)
        }
    }

    /// How many deliveries `filter` matches, its `limit` aside: what a long-poll counts before it reads them.
    public func deliveryCount(matching filter: DeliveryFilter) throws -> Int {
        if let memoryDeliveries { return memoryDeliveries.count(matching: filter) }
        return try database.read { try Self.request(filter).fetchCount($0) }
    }

    private static func request(_ filter: DeliveryFilter) -> QueryInterfaceRequest<DeliveryRecord> {
        var request = DeliveryRecord.all()
        if let device = filter.device { request = request.filter(Column("device") == device) }
        if let token = filter.token { request = request.filter(Column("token") == token.lowercased()) }
        if let bundleID = filter.bundleID { request = request.filter(Column("bundleID") == bundleID) }
        if let apnsID = filter.apnsID { request = request.filter(Column("apnsId") == apnsID) }
        if let uniqueID = filter.uniqueID { request = request.filter(Column("uniqueId") == uniqueID.lowercased()) }
        if let after = filter.after { request = request.filter(Column("acceptedAt") > after.timeIntervalSince1970) }
        if filter.completedOnly { request = request.filter(Column("outcome") != nil) }
        if let before = filter.before { request = request.filter(Column("acceptedAt") < before.timeIntervalSince1970) }
        switch filter.page {
        case nil:
            break
        case .olderThan(let id):
            request = request.filter(sql: "(acceptedAt, rowid) < (SELECT acceptedAt, rowid FROM deliveries WHERE id = ?)", arguments: [id])
        case .newerThan(let id):
            request = request.filter(sql: "(acceptedAt, rowid) > (SELECT acceptedAt, rowid FROM deliveries WHERE id = ?)", arguments: [id])
        }
        return request
    }

    /// Every registration and held push, for a gateway starting on this store (held pushes in the order held).
    public func deviceState() throws -> (registrations: [DeviceRegistration], held: [HeldPush]) {
        try database.read { db in
            (try DeviceRegistration.fetchAll(db), try HeldPush.order(Column("rowid")).fetchAll(db))
        }
    }

    /// How many deliveries were recorded, and how many of them have an outcome.
    public func deliveryCounts() throws -> (total: Int, completed: Int) {
        if let memoryDeliveries { return memoryDeliveries.counts }
        return try database.read { db in
            (try DeliveryRecord.fetchCount(db), try DeliveryRecord.filter(Column("outcome") != nil).fetchCount(db))
        }
    }

    /// Forgets every delivery record, and the interactions and summaries with what they showed.
    public func deleteAllDeliveries() throws {
        memoryDeliveries?.deleteAll()
        try database.write { db in
            if memoryDeliveries == nil { _ = try DeliveryRecord.deleteAll(db) }
            try db.execute(sql: "DELETE FROM interactions")
            try db.execute(sql: "DELETE FROM summaries")
        }
    }

    /// Forgets every recorded send.
    public func deleteAllSends() throws {
        _ = try database.write { try SendRecord.deleteAll($0) }
    }
}
