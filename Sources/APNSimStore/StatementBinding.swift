import Foundation
import GRDB
import GRDBSQLite

/// Binds a cached statement's parameters in order through SQLite's C API, then runs it: for the rows written for
/// every push (sends, deliveries, receipts), where GRDB's `StatementArguments`, which box every value, cost more than
/// SQLite's own work in `Benchmarks/provider.sh` profiles.
struct StatementBinding {
    private let handle: OpaquePointer
    private var column: Int32 = 0

    init(_ statement: Statement) {
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
    }

    /// How many parameters are bound so far.
    var count: Int { Int(column) }

    mutating func bind(_ text: String?) {
        column += 1
        guard var text else { sqlite3_bind_null(handle, column); return }
        text.withUTF8 { bytes in
            // The length is explicit: text may hold NUL bytes.
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, column, chars.baseAddress ?? Self.empty, Int32(chars.count), Self.transient)
            }
        }
    }

    /// As a BLOB, so text with NUL bytes comes back whole (TEXT is read as a C string).
    mutating func bindBlob(_ text: String?) {
        column += 1
        guard var text else { sqlite3_bind_null(handle, column); return }
        text.withUTF8 { bytes in
            let start = UnsafeRawPointer(bytes.baseAddress) ?? UnsafeRawPointer(Self.empty)
            _ = sqlite3_bind_blob(handle, column, start, Int32(bytes.count), Self.transient)
        }
    }

    mutating func bind(_ number: Int?) {
        column += 1
        guard let number else { sqlite3_bind_null(handle, column); return }
        sqlite3_bind_int64(handle, column, Int64(number))
    }

    mutating func bind(_ number: Double?) {
        column += 1
        guard let number else { sqlite3_bind_null(handle, column); return }
        sqlite3_bind_double(handle, column, number)
    }

    /// Runs the statement once with what is bound.
    func run(in db: Database) throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

    /// SQLite's SQLITE_TRANSIENT: copy the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
