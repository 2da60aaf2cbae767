import APNSimExtensions
import Foundation
import Testing

/// What a command prints when it cannot do what it was asked: one sentence naming the input, exit status 1, and
/// no usage text (that is for mistakes on the command line itself).
@Suite("Command errors")
struct CommandErrorTests {
    @Test("A broken world file stops apnsim gateway with file, line and key, and no usage text")
    func brokenWorld() async throws {
        let world = FileManager.default.temporaryDirectory.appendingPathComponent("world-\(UUID().uuidString).yaml").path
        try "teams:\n  - {id: T1, name: [x]}\n".write(toFile: world, atomically: true, encoding: .utf8)
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "gateway", "--world", world,
                                                           "--development-port", "0", "--production-port", "0",
                                                           "--control-port", "0", "--device-port", "0"])
        #expect(status == .exited(1))
        #expect(output == "apnsim: \(world):2: teams[0].name: expected a single value, found a list\n")
    }

    @Test("A mistake on the command line still gets the usage")
    func unknownOption() async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "gateway", "--bogus"])
        #expect(status != .exited(0))
        #expect(output.contains("Unknown option '--bogus'") && output.contains("Usage:"))
    }

    @Test("--help on a subcommand prints its help and exits 0 (it once printed ArgumentParser's internal error)")
    func help() async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "up", "--help"])
        #expect(status == .exited(0))
        #expect(output.contains("USAGE: apnsim up") && !output.contains("CommandError"))
    }

    @Test("An unknown --log-level is a usage error that lists the levels, not a quiet default")
    func logLevel() async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "gateway", "--log-level", "loud"])
        #expect(status != .exited(0))
        #expect(output.contains("'loud' is invalid for '--log-level") && output.contains("warning"))
    }
}
