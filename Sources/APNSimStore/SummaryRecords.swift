import APNSimRules
import Foundation
import GRDB

extension SQLiteStore {
    /// Records a Scheduled Summary a device delivered.
    public func record(_ summary: SummaryDelivery) throws {
        let json = String(decoding: try RecordJSON.encoder.encode(summary), as: UTF8.self)
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO summaries (id, device, at, record) VALUES (?, ?, ?, ?)",
                           arguments: [summary.id, summary.device, summary.at.timeIntervalSince1970, json])
        }
    }

    /// The summaries devices delivered (of `device` when given), oldest first, at most `limit`.
    public func summaries(device: String?, limit: Int) throws -> [SummaryDelivery] {
        let sql = "SELECT record FROM summaries" + (device == nil ? "" : " WHERE device = ?") + " ORDER BY at, rowid LIMIT ?"
        let arguments: [(any DatabaseValueConvertible)?] = (device.map { [$0] } ?? []) + [limit]
        let rows = try database.read { db in try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
        return try rows.map { try RecordJSON.decoder.decode(SummaryDelivery.self, from: Data($0.utf8)) }
    }
}
