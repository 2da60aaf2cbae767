import APNSimRules
import Foundation
import GRDB
import GRDBSQLite

/// Binds a cached statement's parameters in order through SQLite's C API, then runs it: for the rows written for
/// every push (sends, deliveries, receipts), where GRDB's `StatementArguments`, which box every value, cost more than
/// SQLite's own work in `Benchmarks/provider.sh` profiles.
///
/// Text and blobs are gathered end to end in one buffer and bound in place while the statement runs
/// (`SQLITE_STATIC`): bound one by one with `SQLITE_TRANSIENT`, SQLite allocated and copied each of a row's dozen
/// strings (`Benchmarks/instructions.sh`: 8,000 instructions a push).
struct StatementBinding {
    private let handle: OpaquePointer
    private var column: Int32 = 0
    /// The text and blob values, end to end, and where each one is.
    private var bytes: [UInt8] = []
    private var pieces: [(column: Int32, start: Int, count: Int, blob: Bool)] = []

    init(_ statement: Statement) {
        handle = statement.sqliteStatement
        sqlite3_reset(handle)
        bytes.reserveCapacity(1024)
        pieces.reserveCapacity(16)
    }

    /// How many parameters are bound so far.
    var count: Int { Int(column) }

    mutating func bind(_ text: String?) {
        column += 1
        guard let text else { sqlite3_bind_null(handle, column); return }
        gather(text, blob: false)
    }

    /// As a BLOB, so text with NUL bytes comes back whole (TEXT is read as a C string).
    mutating func bindBlob(_ text: String?) {
        column += 1
        guard let text else { sqlite3_bind_null(handle, column); return }
        gather(text, blob: true)
    }

    /// UTF-8 bytes as TEXT.
    mutating func bind(utf8 text: [UInt8]) {
        column += 1
        let start = bytes.count
        bytes.append(contentsOf: text)
        pieces.append((column, start, text.count, false))
    }

    private mutating func gather(_ text: String, blob: Bool) {
        let start = bytes.count
        bytes.append(contentsOf: text.utf8)
        pieces.append((column, start, bytes.count - start, blob))
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

    /// Runs the statement once with what is bound. The text is bound here, where its buffer is valid, and unbound
    /// before it goes.
    func run(in db: Database) throws {
        _ = try step(in: db, reading: false)
    }

    /// Runs a statement whose `RETURNING` clause names one number, and returns it for the first row changed: `nil` when
    /// no row was, or its value is not a number (dates from before they were stored as numbers are text).
    func runReturningNumber(in db: Database) throws -> Double? {
        try step(in: db, reading: true)
    }

    /// One step; SQLite makes every change of an `UPDATE … RETURNING` in its first (SQLite, "The RETURNING Clause",
    /// https://sqlite.org/lang_returning.html), so the rows it returns after the first need not be stepped through.
    private func step(in db: Database, reading: Bool) throws -> Double? {
        var number: Double?
        let code = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            let base = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(Self.empty)
            for piece in pieces {
                // The length is explicit: text may hold NUL bytes.
                if piece.blob {
                    sqlite3_bind_blob(handle, piece.column, base + piece.start, Int32(piece.count), nil)  // nil: SQLITE_STATIC
                } else {
                    sqlite3_bind_text(handle, piece.column, (base + piece.start).assumingMemoryBound(to: CChar.self), Int32(piece.count), nil)  // nil: SQLITE_STATIC
                }
            }
            var code = sqlite3_step(handle)
            if reading, code == SQLITE_ROW {
                let type = sqlite3_column_type(handle, 0)
                if type == SQLITE_FLOAT || type == SQLITE_INTEGER { number = sqlite3_column_double(handle, 0) }
                code = SQLITE_DONE
            }
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            return code
        }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        return number
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

}
