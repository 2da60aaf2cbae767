import APNSimCore
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

    /// The receipt's update: its outcome, content, detail, time, extension run and presentation, by ID.
    static let receiptSQL = "UPDATE deliveries SET outcome = ?, content = ?, detail = ?, displayedAt = ?, "
        + "deliveredAt = coalesce(deliveredAt, ?), extension = ?, presentation = ?, activity = ? WHERE id = ?"

    /// Runs `statement` (``insertSQL``) for this record. A record is inserted with no content, extension run or
    /// presentation (the receipt brings them) except the few the gateway completes itself.
    func insert(with statement: Statement, in db: Database) throws {
        var row = StatementBinding(statement)
        row.bind(id); row.bind(apnsId); row.bind(device); row.bind(bundleID); row.bind(token); row.bind(pushType)
        row.bind(outcome?.rawValue); row.bind(content.map { EncodedJSON($0).text }); row.bind(detail)
        row.bind(acceptedAt.timeIntervalSince1970); row.bind(deliveredAt?.timeIntervalSince1970)
        row.bind(displayedAt?.timeIntervalSince1970); row.bind(extensionRun.map { EncodedJSON($0).text })
        row.bind(presentation.map { EncodedJSON($0).text }); row.bind(activity.map { EncodedJSON($0).text })
        row.bind(uniqueId)
        assert(row.count == Self.insertColumns.count)
        try row.run(in: db)
    }

    /// Reads a row. Dates are seconds since 1970 (text in files written before that was fixed, which GRDB also
    /// reads). The content, extension run and presentation are the JSON a device wrote (``ReceivedReceipt``): one
    /// that does not read as its type is left out and named in ``unreadable``, so one device's bad receipt cannot
    /// make the rest of the record unreadable.
    public init(row: Row) throws {
        id = row["id"]
        apnsId = row["apnsId"]
        uniqueId = row["uniqueId"]
        device = row["device"]
        bundleID = row["bundleID"]
        token = row["token"]
        pushType = row["pushType"]
        outcome = (row["outcome"] as String?).flatMap(DeliveryOutcome.init(rawValue:))
        detail = row["detail"]
        acceptedAt = row["acceptedAt"]
        deliveredAt = row["deliveredAt"]
        displayedAt = row["displayedAt"]
        var unreadable: [String] = []
        content = Self.read(row["content"], as: "content", unreadable: &unreadable)
        extensionRun = Self.read(row["extension"], as: "extension", unreadable: &unreadable)
        presentation = Self.read(row["presentation"], as: "presentation", unreadable: &unreadable)
        activity = Self.read(row["activity"], as: "activity", unreadable: &unreadable)
        storedAt = row["storedAt"]
        storedFor = (row["storedFor"] as String?).flatMap(StoredFor.init(rawValue:))
        consoleState = ConsoleState.of(outcome: outcome, detail: detail, storedFor: storedFor, deliveredAt: deliveredAt)
        self.unreadable = unreadable.isEmpty ? nil : unreadable
    }

    private static func read<Value: Codable>(_ text: String?, as field: String, unreadable: inout [String]) -> Value? {
        guard let text else { return nil }
        do {
            return try EncodedJSON<Value>(unchecked: text).decoded()
        } catch {
            unreadable.append("\(field): the device's receipt held \(text.count > 200 ? text.prefix(200) + "…" : text), "
                              + "which is not a \(Value.self) (\(Self.reason(error)))")
            return nil
        }
    }

    /// What `JSONDecoder` says is wrong, in words: which field, and what it expected.
    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?: "\(path(context)) is not a \(type)"
        case .keyNotFound(let key, let context)?: "\(path(context, key)) is missing"
        case .valueNotFound(let type, let context)?: "\(path(context)) is null, not a \(type)"
        case .dataCorrupted(let context)?: "\(path(context)): \(context.debugDescription)"
        default: "\(error)"
        }
    }

    /// The field a decoding error names, such as `attachments.0.size` (`the whole` for the top).
    private static func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
        let keys = context.codingPath + (last.map { [$0] } ?? [])
        let path = keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "the whole" : path
    }
}
