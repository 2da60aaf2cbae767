import APNSimRules
import Foundation
import GRDB

/// How a ``SendRecord`` becomes a row: written by hand, not through Codable, because the gateway records every
/// push and `Benchmarks/provider.sh` profiles showed GRDB's Codable encoder and Foundation's JSON and date
/// formatters as a quarter of the gateway's CPU.
extension SendRecord {
    /// The columns in insert order; `Store` builds its cached statement from them.
    static let insertColumns = [
        "receivedAt", "environment", "authMode", "method", "path", "token", "topic", "pushType", "apnsId", "headers",
        "payload", "payloadBytes", "status", "reason", "explanation", "durationMicros", "team", "keyID",
        "fault", "uniqueId",
    ]

    /// Reads a row written by ``insert(with:in:)``.
    public init(row: Row) throws {
        id = row["id"] as Int64?
        receivedAt = Date(timeIntervalSince1970: row["receivedAt"] as Double)
        environment = row["environment"] as String
        authMode = row["authMode"] as String
        method = row["method"] as String
        path = row["path"] as String
        token = row["token"] as String?
        topic = row["topic"] as String?
        pushType = row["pushType"] as String?
        apnsID = row["apnsId"] as String
        headers = RequestHeaders(text: row["headers"] as String)
        payload = (row["payload"] as Data?).map { String(decoding: $0, as: UTF8.self) }
        payloadBytes = row["payloadBytes"] as Int
        status = row["status"] as Int
        reason = row["reason"] as String?
        explanation = row["explanation"] as String?
        durationMicros = row["durationMicros"] as Int
        teamID = row["team"] as String?
        keyID = row["keyID"] as String?
        fault = row["fault"] as String?
        uniqueID = row["uniqueId"] as String?
    }

    /// Runs `statement` (an INSERT of ``insertColumns``) for this record.
    func insert(with statement: Statement, in db: Database) throws {
        var row = StatementBinding(statement)
        row.bind(receivedAt.timeIntervalSince1970)
        row.bind(environment); row.bind(authMode); row.bind(method); row.bind(path); row.bind(token); row.bind(topic)
        row.bind(pushType); row.bind(apnsID); row.bind(utf8: headers.json)
        row.bindBlob(payload)
        row.bind(payloadBytes); row.bind(status); row.bind(reason)
        row.bind(explanation); row.bind(durationMicros); row.bind(teamID); row.bind(keyID); row.bind(fault); row.bind(uniqueID)
        assert(row.count == Self.insertColumns.count)
        try row.run(in: db)
    }
}
