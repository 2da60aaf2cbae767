import Foundation
import PostgresNIO

/// A `WHERE` clause built from a filter's fields, each value a bound parameter (`$1`, `$2`, …), never text in the SQL.
struct PostgresFilter {
    private(set) var conditions: [String] = []
    private(set) var binds = PostgresBindings()

    /// The next parameter's placeholder, `value` bound to it.
    mutating func parameter(_ value: some PostgresDynamicTypeEncodable) -> String {
        binds.append(value)
        return "$\(binds.count)"
    }

    /// `column = value`, when there is a value. PostgreSQL's text holds no NUL, and refuses a parameter with one: no
    /// row holds such a value, so it matches nothing, as in SQLite.
    mutating func equal(_ column: String, _ value: String?) {
        guard let value else { return }
        guard !value.utf8.contains(0) else { return conditions.append("false") }
        conditions.append("\(column) = \(parameter(value))")
    }

    mutating func equal(_ column: String, _ value: Int?) {
        guard let value else { return }
        conditions.append("\(column) = \(parameter(value))")
    }

    /// `column op value` for a time, in seconds since 1970, when there is one.
    mutating func compare(_ column: String, _ operation: String, _ value: Date?) {
        guard let value else { return }
        conditions.append("\(column) \(operation) \(parameter(value.timeIntervalSince1970))")
    }

    /// A condition of the caller's own, its parameters bound with ``parameter(_:)`` first.
    mutating func add(_ condition: String) {
        conditions.append(condition)
    }

    var whereClause: String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// `SELECT columns FROM table WHERE … ORDER BY order LIMIT limit`.
    func select(_ columns: String, from table: String, order: String? = nil, limit: Int? = nil) -> PostgresQuery {
        var filter = self
        var sql = "SELECT \(columns) FROM \(table)" + whereClause
        if let order { sql += " ORDER BY \(order)" }
        // SQLite reads a negative limit as none; PostgreSQL refuses it.
        if let limit, limit >= 0 { sql += " LIMIT \(filter.parameter(limit))" }
        return PostgresQuery(unsafeSQL: sql, binds: filter.binds)
    }

    /// Bindings of one value, for a statement of one parameter.
    static func bindings(_ value: some PostgresDynamicTypeEncodable) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(value)
        return binds
    }

    static func bindings(_ first: some PostgresDynamicTypeEncodable, _ second: some PostgresDynamicTypeEncodable) -> PostgresBindings {
        var binds = bindings(first)
        binds.append(second)
        return binds
    }

    static func bindings(_ first: some PostgresDynamicTypeEncodable, _ second: some PostgresDynamicTypeEncodable,
                         _ third: some PostgresDynamicTypeEncodable) -> PostgresBindings {
        var binds = bindings(first, second)
        binds.append(third)
        return binds
    }
}
