import Foundation
import GRDB
import GRDBSQLite

/// How a ``SendRecord`` becomes a row: written by hand, not through Codable, because the gateway records every
/// push and `Benchmarks/provider.sh` profiles showed GRDB's Codable encoder and Foundation's JSON and date
/// formatters as a quarter of the gateway's CPU.
extension SendRecord {
    /// The columns in insert order; `Store` builds its cached statement from them.
    static let insertColumns = [
        "receivedAt", "environment", "authMode", "method", "path", "token", "topic", "pushType", "apnsID", "headers",
        "payload", "payloadBytes", "status", "reason", "explanation", "durationMicros", "teamID", "keyID",
        "fault",
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
        apnsID = row["apnsID"] as String
        headers = try JSONDecoder().decode([String: String].self, from: Data((row["headers"] as String).utf8))
        payload = (row["payload"] as Data?).map { String(decoding: $0, as: UTF8.self) }
        payloadBytes = row["payloadBytes"] as Int
        status = row["status"] as Int
        reason = row["reason"] as String?
        explanation = row["explanation"] as String?
        durationMicros = row["durationMicros"] as Int
        teamID = row["teamID"] as String?
        keyID = row["keyID"] as String?
        fault = row["fault"] as String?
    }

    /// Runs `statement` (an INSERT of ``insertColumns``) for this record, binding through SQLite's C API:
    /// GRDB's `StatementArguments` box every value and cost more than SQLite's own work.
    func insert(with statement: Statement, in db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var column: Int32 = 0
        func bind(_ text: String?) {
            column += 1
            guard var text else { sqlite3_bind_null(handle, column); return }
            text.withUTF8 { bytes in
                // The length is explicit: a payload may hold NUL bytes.
                _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                    sqlite3_bind_text(handle, column, chars.baseAddress ?? Self.empty, Int32(chars.count), Self.transient)
                }
            }
        }
        func bind(_ number: Int) {
            column += 1
            sqlite3_bind_int64(handle, column, Int64(number))
        }
        column += 1
        sqlite3_bind_double(handle, column, receivedAt.timeIntervalSince1970)
        bind(environment); bind(authMode); bind(method); bind(path); bind(token); bind(topic); bind(pushType)
        bind(apnsID); bind(Self.jsonObject(headers))
        column += 1
        if var payload {
            // A BLOB, so a body with NUL bytes comes back whole (TEXT is read as a C string).
            payload.withUTF8 { bytes in
                let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(Self.empty)
                _ = sqlite3_bind_blob(handle, column, start, Int32(bytes.count), Self.transient)
            }
        } else {
            sqlite3_bind_null(handle, column)
        }
        bind(payloadBytes); bind(status); bind(reason)
        bind(explanation); bind(durationMicros); bind(teamID); bind(keyID); bind(fault)
        assert(column == Int32(Self.insertColumns.count))
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

    /// SQLite's SQLITE_TRANSIENT: copy the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// `headers` as the JSON object text GRDB's Codable decoding reads back into `[String: String]`.
    static func jsonObject(_ fields: [String: String]) -> String {
        var json: [UInt8] = [UInt8(ascii: "{")]
        json.reserveCapacity(fields.reduce(2) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        for (name, value) in fields {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            appendJSONString(name, to: &json)
            json.append(UInt8(ascii: ":"))
            appendJSONString(value, to: &json)
        }
        json.append(UInt8(ascii: "}"))
        return String(decoding: json, as: UTF8.self)
    }

    /// RFC 8259 §7: quote, backslash and control characters escaped; every other byte of the UTF-8 as it is.
    private static func appendJSONString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        defer { json.append(UInt8(ascii: "\"")) }
        var text = text
        let plain = text.withUTF8 { bytes -> Bool in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            json.append(contentsOf: bytes)  // the usual case: nothing to escape, one copy
            return true
        }
        if plain { return }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                json.append(UInt8(ascii: "\\"))
                json.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                json.append(contentsOf: Array("\\u00".utf8))
                json.append(hex[Int(byte >> 4)])
                json.append(hex[Int(byte & 0xF)])
            default:
                json.append(byte)
            }
        }
    }
}
