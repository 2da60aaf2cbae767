import APNSimRules
import Foundation
import GRDB

/// How a ``DeliveryRecord`` becomes a row and back, written by hand: a record is inserted and updated for every
/// push, and GRDB's Codable encoder and `JSONEncoder` were a sixth of the gateway's time in `Benchmarks/e2e.sh`
/// profiles.
extension DeliveryRecord {
    /// The columns in insert order; `Store` builds its cached statement from them.
    static let insertColumns = [
        "id", "apnsId", "device", "bundleID", "token", "pushType", "outcome", "content", "detail", "acceptedAt",
        "deliveredAt", "displayedAt", "extension", "presentation", "activity", "uniqueId",
    ]

    static let insertSQL = "INSERT OR REPLACE INTO deliveries (" + insertColumns.joined(separator: ", ") + ") VALUES ("
        + insertColumns.map { _ in "?" }.joined(separator: ", ") + ")"

    /// The receipt's update: its outcome, content, detail, time, extension run and presentation, by ID; returns when
    /// the push was accepted (its display latency).
    static let receiptSQL = "UPDATE deliveries SET outcome = ?, content = ?, detail = ?, displayedAt = ?, "
        + "deliveredAt = coalesce(deliveredAt, ?), extension = ?, presentation = ?, activity = ? WHERE id = ? RETURNING acceptedAt"

    /// Runs `statement` (``insertSQL``) for this record (``StoredDelivery/init(accepted:)``).
    func insert(with statement: Statement, in db: Database) throws {
        let stored = StoredDelivery(accepted: self)
        var row = StatementBinding(statement)
        row.bind(stored.id); row.bind(stored.apnsID); row.bind(stored.device); row.bind(stored.bundleID); row.bind(stored.token)
        row.bind(stored.pushType); row.bind(stored.outcome?.rawValue); row.bind(stored.content?.text); row.bind(stored.detail)
        row.bind(stored.acceptedAt.timeIntervalSince1970); row.bind(stored.deliveredAt?.timeIntervalSince1970)
        row.bind(stored.displayedAt?.timeIntervalSince1970); row.bind(stored.extensionRun?.text)
        row.bind(stored.presentation?.text); row.bind(stored.activity?.text); row.bind(stored.uniqueID)
        assert(row.count == Self.insertColumns.count)
        try row.run(in: db)
    }

    /// Reads a row. Dates are seconds since 1970 (text in files written before that was fixed, which GRDB also
    /// reads). The content, extension run and presentation are the JSON a device wrote (``ReceivedReceipt``), checked
    /// when the record is made (``DeliveryRecord/init(_:)``).
    public init(row: Row) throws {
        self.init(StoredDelivery(
            id: row["id"], apnsID: row["apnsId"], uniqueID: row["uniqueId"], device: row["device"], bundleID: row["bundleID"],
            token: row["token"], pushType: row["pushType"],
            outcome: (row["outcome"] as String?).flatMap(DeliveryOutcome.init(rawValue:)),
            content: (row["content"] as String?).map(EncodedJSON.init(unchecked:)), detail: row["detail"],
            acceptedAt: row["acceptedAt"], deliveredAt: row["deliveredAt"], displayedAt: row["displayedAt"],
            extensionRun: (row["extension"] as String?).map(EncodedJSON.init(unchecked:)),
            presentation: (row["presentation"] as String?).map(EncodedJSON.init(unchecked:)),
            activity: (row["activity"] as String?).map(ReceiptChange.init(unchecked:)),
            storedAt: row["storedAt"], storedFor: (row["storedFor"] as String?).flatMap(StoredFor.init(rawValue:))))
    }
}
