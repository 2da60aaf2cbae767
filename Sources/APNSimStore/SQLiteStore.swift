import APNSimRules
import Foundation
import GRDB

/// The ``Store`` on SQLite through GRDB: a file one gateway keeps, or, unless a file is named, memory (the sends in an
/// in-memory SQLite database, the deliveries in ``MemoryDeliveries``).
///
/// GRDB's calls are synchronous: a write here blocks its caller for the length of one SQLite transaction, which is
/// what it did before the store was a protocol (each recorder's one writer task, and the control API's reads).
public final class SQLiteStore: Store {
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
        self.isDurable = path != nil
        memoryDeliveries = path == nil ? MemoryDeliveries() : nil
        try Self.migrator.migrate(database)
    }

    /// Whether the record is kept in a file (and so survives the process).
    public let isDurable: Bool

    /// In this process: there while the gateway is.
    public var health: StoreHealth? { nil }

    /// One gateway's own.
    public var isShared: Bool { false }

    /// The delivery record when nothing is kept in a file: Swift's own arrays and dictionaries, which answer as the
    /// file's `deliveries` table does at a fraction of a push's cost (docs/speed.md). `nil` for a file.
    private let memoryDeliveries: MemoryDeliveries?

    /// Inserts a batch in one transaction.
    public func insertSends(_ records: [SendRecord]) throws {
        guard !records.isEmpty else { return }
        try database.write { db in
            let insert = try db.cachedStatement(sql: Self.insertSQL)
            for record in records {
                try record.insert(with: insert, in: db)
            }
        }
    }

    /// Deletes all but the newest `keeping` sends, and those received before `before`; returns how many went.
    public func trimSends(keeping: Int?, before: Date?) throws -> Int {
        try trim(table: "sends", order: "id", time: "receivedAt", keeping: keeping, before: before)
    }

    /// Deletes all but the newest `keeping` deliveries, and those accepted before `before`; returns how many went.
    public func trimDeliveries(keeping: Int?, before: Date?) throws -> Int {
        if let memoryDeliveries { return memoryDeliveries.trim(keeping: keeping, before: before) }
        return try trim(table: "deliveries", order: "rowid", time: "acceptedAt", keeping: keeping, before: before)
    }

    /// One `DELETE` for the count (everything up to the row `keeping` places from the newest by `order`) and one
    /// for the age (`time` in seconds since 1970), in one transaction.
    func trim(table: String, order: String, time: String, keeping: Int?, before: Date?) throws -> Int {
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
    public func apply(_ events: [DeliveryEvent]) throws -> [Double] {
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
                case .handedOff, .handOffDone, .linked, .unlinked, .storedClaimed, .channelCreated, .channelDeleted, .broadcastShared:
                    break  // a file has one gateway: nothing is handed to another, no link is another's
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
    public func deviceState() throws -> RestartState {
        try database.read { db in
            RestartState(registrations: try DeviceRegistration.fetchAll(db), held: try HeldPush.order(Column("rowid")).fetchAll(db))
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
