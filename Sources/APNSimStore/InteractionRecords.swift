import APNSimRules
import Foundation
import GRDB

/// Which interaction records to read (`GET /v1/interactions`): the filters of deliveries.
public struct InteractionFilter: Sendable, Hashable {
    public var device: String?
    public var token: String?
    public var bundleID: String?
    public var apnsID: String?
    public var limit: Int

    public init(device: String? = nil, token: String? = nil, bundleID: String? = nil, apnsID: String? = nil, limit: Int = 100) {
        self.device = device
        self.token = token
        self.bundleID = bundleID
        self.apnsID = apnsID
        self.limit = limit
    }
}

extension SQLiteStore {
    /// Records what a user did to a notification, and what the app did (`token`: the one the push went to).
    public func record(_ interaction: InteractionRecord, token: String?) throws {
        let json = String(decoding: try RecordJSON.encoder.encode(interaction), as: UTF8.self)
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO interactions (id, device, bundleID, apnsId, token, at, record) VALUES (?, ?, ?, ?, ?, ?, ?)",
                           arguments: [interaction.id, interaction.device, interaction.bundleID, interaction.apnsID, token?.lowercased(),
                                       interaction.at.timeIntervalSince1970, json])
        }
    }

    /// Interaction records matching `filter`, oldest first.
    public func interactions(matching filter: InteractionFilter) throws -> [InteractionRecord] {
        var conditions: [String] = [], arguments: [(any DatabaseValueConvertible)?] = []
        for (column, value) in [("device", filter.device), ("token", filter.token?.lowercased()), ("bundleID", filter.bundleID),
                                ("apnsId", filter.apnsID)] {
            guard let value else { continue }
            conditions.append("\(column) = ?")
            arguments.append(value)
        }
        arguments.append(filter.limit)
        let sql = "SELECT record FROM interactions" + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY at, rowid LIMIT ?"
        let rows = try database.read { db in try String.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
        return try rows.map { try RecordJSON.decoder.decode(InteractionRecord.self, from: Data($0.utf8)) }
    }
}
