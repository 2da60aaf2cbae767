import APNSimExtensions
import APNSimTestKit
import Foundation

/// Debian's PostgreSQL in a folder of the test's own, on a port of its own (`Interop/postgres.sh`), which the test can
/// stop and start again. Only when `APNSIM_CLUSTER_TESTS=1` (`.ci/run`'s cluster step sets it; it needs PostgreSQL's
/// server installed, and root or the postgres user).
struct PostgresServer {
    let folder: String
    let port: Int
    /// `postgres://apnsim:…@127.0.0.1:PORT/apnsim?sslmode=disable`: it carries the password, so it goes in `APNSIM_STORE`.
    let address: String

    static var isEnabled: Bool { ProcessInfo.processInfo.environment["APNSIM_CLUSTER_TESTS"] == "1" }

    static func start() async throws -> PostgresServer {
        // Not in the test process's own temporary folder: only its user may enter that, and PostgreSQL runs as its own.
        let folder = "/tmp/apnsim-postgres-\(UUID().uuidString)"
        let port = try RestartPort.pick()
        let server = PostgresServer(folder: folder, port: port, address: try await run(["start", folder, String(port)]))
        return server
    }

    /// Stops the server (fast: its connections are closed), keeping its data for ``restart()``.
    func stop() async throws {
        _ = try await Self.run(["stop", folder])
    }

    /// Starts it again on the same port, with the same data.
    func restart() async throws {
        _ = try await Self.run(["start", folder, String(port)])
    }

    /// Runs `body` with a server started for it, then stops the server and removes its folder, whatever `body` did.
    static func with<Result>(_ body: (PostgresServer) async throws -> Result) async throws -> Result {
        let server = try await start()
        do {
            let result = try await body(server)
            await server.remove()
            return result
        } catch {
            await server.remove()
            throw error
        }
    }

    /// The rows `sql` reads from database apnsim, each a line of columns split by `|`.
    func query(_ sql: String) async throws -> [String] {
        let (status, output) = try await ChildProcess.run(["/bin/bash", "Interop/postgres.sh", "query", folder, String(port), sql])
        guard status == .exited(0) else { throw HarnessError("\(sql) failed: \(output)") }
        return output.split(whereSeparator: \.isNewline).map(String.init)
    }

    /// Stops it and removes its folder.
    func remove() async {
        _ = try? await Self.run(["stop", folder])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs `Interop/postgres.sh` with `arguments`; returns the last line it printed.
    private static func run(_ arguments: [String]) async throws -> String {
        let (status, output) = try await ChildProcess.run(["/bin/bash", "Interop/postgres.sh"] + arguments)
        guard status == .exited(0) else { throw HarnessError("Interop/postgres.sh \(arguments.joined(separator: " ")) failed: \(output)") }
        return output.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
    }
}
