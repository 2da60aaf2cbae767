import APNSimStore
import Foundation
import Testing

/// `--store` by its form: memory, a SQLite file, or a PostgreSQL address, read as libpq reads one; and the password
/// from a password file.
@Suite("Store addresses")
struct StoreAddressTests {
    @Test("Nothing is memory, a path is SQLite, postgres:// and postgresql:// are PostgreSQL with libpq's defaults")
    func forms() throws {
        #expect(try StoreAddress(nil) == .memory)
        #expect(try StoreAddress("") == .memory)
        #expect(try StoreAddress("/var/lib/apnsim/record.sqlite") == .sqlite(path: "/var/lib/apnsim/record.sqlite"))
        #expect(try StoreAddress("record.sqlite") == .sqlite(path: "record.sqlite"))
        #expect(try StoreAddress("postgres://apnsim@db/apnsim")
                == .postgres(PostgresAddress(user: "apnsim", host: "db", port: 5432, database: "apnsim", tls: .prefer)))
        let full = try PostgresAddress("postgresql://ops:s3cr%40t@10.0.0.7:6543/records?sslmode=verify-full")
        #expect(full == PostgresAddress(user: "ops", password: "s3cr@t", host: "10.0.0.7", port: 6543, database: "records", tls: .verifyFull))
        #expect(full.description == "postgres://ops@10.0.0.7:6543/records?sslmode=verify-full", "no password where it is shown")
    }

    @Test("An address apnsim cannot use is refused in one sentence naming it, its password hidden", arguments: [
        ("postgres://db/apnsim", "names no user"),
        ("postgres://apnsim:hunter2@/apnsim", "names no host"),
        ("postgres://apnsim:hunter2@db", "names no database"),
        ("postgres://apnsim@db/apnsim?sslmode=maybe", "sslmode is maybe, not one of disable, prefer, require, verify-full"),
        ("postgres://apnsim@db/apnsim?application_name=x", "apnsim takes sslmode alone of the parameters, not application_name"),
    ])
    func refused(_ text: String, _ why: String) {
        #expect {
            try StoreAddress(text)
        } throws: { error in
            let sentence = "\(error)"
            return sentence.contains(why) && sentence.contains("the store postgres://") && !sentence.contains("hunter2")
        }
    }

    @Test("A password file gives the first line that matches host, port, database and user, * for any, \\: and \\\\ escaped")
    func passwordFile() throws {
        let address = try PostgresAddress("postgres://apnsim@db.internal:5433/records")
        let file = """
            # comments and short lines are skipped
            db.internal:5432:records:apnsim:wrong-port
            other:*:*:*:other-host
            too:few
            db.internal:5433:*:apnsim:with\\:colon\\\\slash
            *:*:*:*:fallback
            """
        #expect(address.password(inPasswordFile: file) == "with:colon\\slash")
        #expect(try PostgresAddress("postgres://someone@elsewhere/x").password(inPasswordFile: file) == "fallback")
        #expect(try PostgresAddress("postgres://a@b/c").password(inPasswordFile: "b:5432:c:a") == nil, "a line of four fields is not one")
    }

    @Test("The password comes from the address, else --store-password-file, else PGPASSFILE; a file that cannot be read is named")
    func passwordOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret").path, pgpass = folder.appendingPathComponent("pgpass").path
        try "from-secret\nsecond line ignored\n".write(toFile: secret, atomically: true, encoding: .utf8)
        try "*:*:*:*:from-pgpass\n".write(toFile: pgpass, atomically: true, encoding: .utf8)
        let environment = ["PGPASSFILE": pgpass]
        #expect(try PostgresAddress("postgres://u:given@h/d").findingPassword(passwordFile: secret, environment: environment).password == "given")
        #expect(try PostgresAddress("postgres://u@h/d").findingPassword(passwordFile: secret, environment: environment).password == "from-secret")
        #expect(try PostgresAddress("postgres://u@h/d").findingPassword(passwordFile: nil, environment: environment).password == "from-pgpass")
        #expect(try PostgresAddress("postgres://u@h/d").findingPassword(passwordFile: nil, environment: [:]).password == nil)
        #expect(throws: StoreAddressError.self) {
            try PostgresAddress("postgres://u@h/d").findingPassword(passwordFile: folder.appendingPathComponent("missing").path)
        }
    }

    @Test("A server that does not answer is one sentence naming the address, at once")
    func unreachable() async throws {
        // Port 1 on loopback: refused at once, nothing listens there.
        await #expect {
            try await StoreAddress("postgres://apnsim@127.0.0.1:1/apnsim?sslmode=disable").open()
        } throws: { error in
            "\(error)".hasPrefix("cannot open the store postgres://apnsim@127.0.0.1:1/apnsim?sslmode=disable: ")
        }
    }
}
