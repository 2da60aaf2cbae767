import APNSimExtensions
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// What a command prints when it cannot do what it was asked: one sentence naming the input, exit status 1, and
/// no usage text (that is for mistakes on the command line itself).
@Suite("Command errors", .endToEnd)
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

    @Test("A timeout of the gateway that is no number of seconds it can wait is an error naming the option and the value",
          arguments: [("--handshake-timeout", "0", "--handshake-timeout takes more than 0 and up to 86400 seconds; got 0.0"),
                      ("--handshake-timeout", "nan", "--handshake-timeout takes more than 0 and up to 86400 seconds; got nan"),
                      ("--heartbeat-interval", "-1", "--heartbeat-interval takes more than 0 and up to 86400 seconds; got -1.0"),
                      ("--shutdown-grace", "1e9", "--shutdown-grace takes 0 to 86400 seconds; got 1000000000.0"),
                      ("--install-wait", "601", "--install-wait takes more than 0 and up to 600 seconds; got 601.0")])
    func badTimeouts(_ option: String, _ value: String, _ message: String) async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "gateway", "\(option)=\(value)"])
        #expect(status != .exited(0))
        #expect(output.contains("Error: \(message)"), "\(output)")
    }

    @Test("A bad device or gateway option is an error naming the option and what it got, before anything starts",
          arguments: [(["device", "--declared", "not json"], "--declared is not a JSON array of apps as a world file declares them"),
                      (["device", "--declared", #"[{"bundleID":"com.example.app","team":"T","categories":[{"identifier":""}]}]"#],
                       "--declared, app com.example.app: "),
                      (["device", "--notification-limit", "0"], "--notification-limit takes 1 or more notifications; got 0"),
                      (["gateway", "--device-link-buffer", "0"], "--device-link-buffer takes 1 to 4096 MiB; got 0"),
                      (["device", "--gateway", "gateway-without-port"], "--gateway takes HOST:PORT ([ADDRESS]:PORT for IPv6); got gateway-without-port"),
                      (["device", "--gateway", "gateway:70000"], "--gateway takes HOST:PORT, a host and a port of 1 to 65535; got gateway:70000"),
                      (["device", "--gateway", "a:5223", "--gateway-host", "b"], "--gateway names each gateway with its port; --gateway-host names one too"),
                      (["gateway", "--store", "postgres://apnsim:hunter2@db/apnsim"],
                       "--store names a password, which every user of this machine can read on a command line (ps)"),
                      (["gateway", "--replica", "gateway one"], "--replica takes a name without spaces, one for each replica on the store; got 'gateway one'"),
                      (["gateway", "--store", "postgres://db/apnsim"], "the store postgres://db/apnsim is not a PostgreSQL address apnsim reads: it names no user"),
                      (["gateway", "--store", "postgres://apnsim@127.0.0.1:1/apnsim?sslmode=disable", "--development-port", "0",
                        "--production-port", "0", "--control-port", "0", "--device-port", "0"],
                       "apnsim: cannot open the store postgres://apnsim@127.0.0.1:1/apnsim?sslmode=disable: "),
                      (["device", "--ephemeral", "--data", "kept"],
                       "--ephemeral keeps nothing and --data names where to keep the device's identity: give one of them"),
                      (["certs", "--print", "key.pem"], "--print takes one of the PKI's files (ca.pem, AuthKey_SIMKEY0001.p8"),
                      (["certs", "--print", "ca.pem", "--export", "out"], "--print and --export do different things: give one of them")])
    func badOptions(_ arguments: [String], _ message: String) async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path] + arguments)
        #expect(status != .exited(0))
        #expect(output.contains(message), "\(output)")
        #expect(!output.contains("hunter2"), "a password is never repeated: \(output)")
    }

    @Test("A device fleet file that cannot be run is refused in one sentence naming the file and what is wrong, before anything starts",
          arguments: [(#"{"id": "f1", "colour": "red"}"#, [String](), "is not a device fleet: colour is not a setting of a device fleet; they are id, name"),
                      (#"{"count": "many"}"#, [], "is not a device fleet: count: not an Int"),
                      (#"{"links": 0, "count": 20000}"#, [], "count 20000 with links 0 would open a link per device"),
                      (#"{"id": "f1"}"#, ["--id", "f2"], "describes the devices; --id describes them too: give it in the file")])
    func badFleetFile(_ json: String, _ more: [String], _ message: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UUID().uuidString).json").path
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, "device", "--config", file] + more)
        #expect(status != .exited(0))
        #expect(output.contains(message), "\(output)")
        #expect(output.contains(file), "the sentence names the file: \(output)")
    }

    @Test("apnsim extension run removes its run folder, unless --keep, which says where it is")
    func extensionRunCleansUp() async throws {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-run-tmp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let payload = temporary.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":{"title":"T","body":"B"},"mutable-content":1}}"#.utf8).write(to: payload)
        let extensionPath = repositoryRoot.appendingPathComponent("Scenarios/extensions/python/attach_image.py").path
        for keep in [false, true] {
            let (status, printed) = try await ChildProcess.run([ApnsimProcess.executable.path, "extension", "run", extensionPath, "--payload", payload.path]
                                                               + (keep ? ["--keep"] : []), environment: ["TMPDIR": temporary.path])
            #expect(status == .exited(0), "\(printed)")
            let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("apnsim-extension-run-") }
            #expect(left.count == (keep ? 1 : 0), "keep \(keep): \(left)")
            if keep { #expect(printed.contains("kept the run's folder: \(temporary.path)/apnsim-extension-run-")) }
        }
    }
}

