import Foundation
import Logging

/// Which store `--store` (or `APNSIM_STORE`) names, by its form: nothing is memory, `postgres://` (or `postgresql://`)
/// is PostgreSQL, which gateway replicas share (docs/cluster.md), anything else is a SQLite file.
public enum StoreAddress: Sendable, Hashable {
    case memory
    case sqlite(path: String)
    case postgres(PostgresAddress)

    /// Reads `text`; a `postgres://` address that does not read throws a sentence naming it.
    public init(_ text: String?) throws(StoreAddressError) {
        guard let text, !text.isEmpty else {
            self = .memory
            return
        }
        if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try PostgresAddress(text))
        } else {
            self = .sqlite(path: text)
        }
    }

    /// Opens the store it names: the file created and the database migrated when they need it.
    public func open(logger: Logger = Logger(label: "apnsim.store")) async throws -> any Store {
        switch self {
        case .memory:
            return try SQLiteStore()
        case .sqlite(let path):
            return try SQLiteStore(path: path)
        case .postgres(let address):
            return try await PostgresStore.open(address, logger: logger)
        }
    }
}

/// A PostgreSQL server and database as `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]` names them, the
/// form libpq reads (PostgreSQL, "Connection URIs", https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-URIS).
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    public var user: String
    /// From the address itself (`APNSIM_STORE` only: never the command line), a password file, or `PGPASSFILE`.
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var tls: TLSMode

    /// libpq's `sslmode`, of the values apnsim takes.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, its certificate not verified (libpq's default).
        case prefer
        /// TLS or no connection, the certificate not verified.
        case require
        /// TLS, the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String, tls: TLSMode = .prefer) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.tls = tls
    }

    /// Reads a `postgres://` address, or throws a sentence naming it and what is wrong.
    public init(_ text: String) throws(StoreAddressError) {
        func refuse(_ why: String) -> StoreAddressError {
            StoreAddressError("the store \(PostgresAddress.hidingPassword(text)) is not a PostgreSQL address apnsim reads: \(why) "
                              + "(postgres://USER@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require|verify-full])")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              ["postgres", "postgresql"].contains(scheme) else {
            throw refuse("it does not read as a URL")
        }
        guard let user = components.user, !user.isEmpty else { throw refuse("it names no user") }
        guard let host = components.host, !host.isEmpty else { throw refuse("it names no host") }
        let database = String(components.path.dropFirst())
        guard !database.isEmpty, !database.contains("/") else { throw refuse("it names no database (the path after the host)") }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            guard item.name == "sslmode" else { throw refuse("apnsim takes sslmode alone of the parameters, not \(item.name)") }
            guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                throw refuse("sslmode is \(item.value ?? "empty"), not one of " + TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
            }
            tls = mode
        }
        self.init(user: user, password: components.password, host: host, port: components.port ?? 5432, database: database, tls: tls)
    }

    /// This address with its password found, when it names none itself: `passwordFile`'s first line (a Kubernetes
    /// Secret mounted as a file), else the PostgreSQL password file `PGPASSFILE` names, else `~/.pgpass` (libpq's
    /// order). No password found is no error: the server may not ask for one.
    public func findingPassword(passwordFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(StoreAddressError) -> PostgresAddress
    {
        guard password == nil else { return self }
        var found = self
        if let passwordFile {
            guard let text = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw StoreAddressError("cannot read the store's password file \(passwordFile)")
            }
            found.password = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return found
        }
        let file = environment["PGPASSFILE"] ?? environment["HOME"].map { $0 + "/.pgpass" }
        if let file, let text = try? String(contentsOfFile: file, encoding: .utf8) {
            found.password = password(inPasswordFile: text)
        }
        return found
    }

    /// The address without its password, as logs and errors show it.
    public var description: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)" + (tls == .prefer ? "" : "?sslmode=\(tls.rawValue)")
    }

    /// `text` with any password in it replaced by `***`, so an error never repeats it.
    static func hidingPassword(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "the address given"
    }

    /// The password for this address in a PostgreSQL password file (`PGPASSFILE`, else `~/.pgpass`): the first line
    /// `host:port:database:user:password` that matches, `*` matching anything (PostgreSQL, "The Password File",
    /// https://www.postgresql.org/docs/current/libpq-pgpass.html).
    public func password(inPasswordFile text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.passwordFileFields(line)
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A password-file line's fields: `:` separates them, `\:` and `\\` are a colon and a backslash within one.
    private static func passwordFileFields(_ line: Substring) -> [String] {
        var fields: [String] = [], field = "", escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}

/// Why `--store` was refused: one sentence naming it.
public struct StoreAddressError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
