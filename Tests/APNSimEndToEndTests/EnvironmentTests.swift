import APNSimExtensions
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Options from `APNSIM_…` environment variables, as containers pass them: the option on the command line wins, a
/// bad value is one sentence naming the variable, and the control token never needs to be in argv.
@Suite("Environment variables", .endToEnd)
struct EnvironmentTests {
    @Test("A bad environment value is refused in one sentence naming the variable, before anything starts", arguments: [
        (["gateway"], "APNSIM_CONTROL_PORT", "abc", "apnsim: APNSIM_CONTROL_PORT is 'abc'; it takes a port, 0 to 65535 (--control-port)\n"),
        (["up"], "APNSIM_DEVELOPMENT_PORT", "70000", "apnsim: APNSIM_DEVELOPMENT_PORT is '70000'; it takes a port, 0 to 65535 (--development-port)\n"),
        (["device"], "APNSIM_DEVICE_COUNT", "0", "apnsim: APNSIM_DEVICE_COUNT is '0'; it takes a number of devices, 1 to 250000 (--count)\n"),
        (["device"], "APNSIM_LOG_LEVEL", "loud", "apnsim: APNSIM_LOG_LEVEL is 'loud'; it takes one of trace, debug, info, notice, warning, error, critical (--log-level)\n"),
        (["media"], "APNSIM_LOG_FORMAT", "xml", "apnsim: APNSIM_LOG_FORMAT is 'xml'; it takes one of text, json (--log-format)\n"),
    ])
    func badValue(_ command: [String], _ variable: String, _ value: String, _ sentence: String) async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path] + command, environment: [variable: value])
        #expect(status == .exited(64))
        #expect(output == sentence)
    }

    @Test("An option on the command line wins over its variable, even a bad one")
    func optionWins() async throws {
        let gateway = try await GatewayProcess.start(environment: ["APNSIM_CONTROL_PORT": "abc", "APNSIM_DEVELOPMENT_PORT": "1"])
        #expect(try await gateway.control.get("/healthz").status == 200)
        await gateway.process.stop()
    }

    @Test("--help names the variable of each option that has one", arguments: [
        ("gateway", ["APNSIM_WORLD", "APNSIM_CERTS", "APNSIM_HOST", "APNSIM_DEVELOPMENT_PORT", "APNSIM_PRODUCTION_PORT",
                     "APNSIM_DEVELOPMENT_MANAGEMENT_PORT", "APNSIM_PRODUCTION_MANAGEMENT_PORT", "APNSIM_CONTROL_PORT",
                     "APNSIM_CONTROL_HOST", "APNSIM_CONTROL_TOKEN", "APNSIM_CONTROL_TOKEN_FILE", "APNSIM_DEVICE_PORT",
                     "APNSIM_STORE", "APNSIM_LOG_LEVEL", "APNSIM_LOG_FORMAT"]),
        ("up", ["APNSIM_HOST", "APNSIM_CONTROL_TOKEN_FILE", "APNSIM_STORE", "APNSIM_LOG_FORMAT"]),
        ("device", ["APNSIM_DEVICE_ID", "APNSIM_DEVICE_COUNT", "APNSIM_GATEWAY_HOST", "APNSIM_DEVICE_PORT", "APNSIM_CERTS",
                    "APNSIM_LOG_LEVEL", "APNSIM_LOG_FORMAT"]),
        ("media", ["APNSIM_HOST", "APNSIM_MEDIA_PORT", "APNSIM_LOG_LEVEL", "APNSIM_LOG_FORMAT"]),
    ])
    func help(_ command: String, _ variables: [String]) async throws {
        let (status, output) = try await ChildProcess.run([ApnsimProcess.executable.path, command, "--help"])
        #expect(status == .exited(0))
        // ArgumentParser wraps help text; a variable's name is never split.
        let missing = variables.filter { !output.contains($0) }
        #expect(missing.isEmpty, "apnsim \(command) --help does not name \(missing)")
    }

    @Test("The control token from a mounted file or a variable, never in argv: missing and wrong tokens get 401",
          arguments: ["file", "variable"])
    func controlToken(_ source: String) async throws {
        let token = "t0k3n-\(UUID().uuidString)"
        var environment: [String: String?] = ["APNSIM_CONTROL_HOST": "0.0.0.0"]
        if source == "file" {
            let file = temporaryDirectory() + "-token"
            try (token + "\n").write(toFile: file, atomically: true, encoding: .utf8)  // secrets end with a newline
            environment["APNSIM_CONTROL_TOKEN_FILE"] = file
        } else {
            environment["APNSIM_CONTROL_TOKEN"] = token
        }
        let gateway = try await GatewayProcess.start(environment: environment)
        let commandLine = try String(contentsOfFile: "/proc/\(gateway.process.pid)/cmdline", encoding: .utf8)
        #expect(!commandLine.contains(token), "the token is in argv")
        #expect(try await Self.status(gateway, "/v1/devices", authorization: nil) == 401)
        #expect(try await Self.status(gateway, "/v1/devices", authorization: "Bearer wrong") == 401)
        #expect(try await Self.status(gateway, "/v1/devices", authorization: "Bearer \(token)") == 200)
        #expect(try await Self.status(gateway, "/readyz", authorization: nil) == 200, "probes need no token")
        await gateway.process.stop()
    }

    @Test("A control token file that is missing or empty stops the gateway with a sentence naming the variable",
          arguments: [("missing", "which does not exist"), ("empty", "which is empty: write the token in it")])
    func badTokenFile(_ kind: String, _ ending: String) async throws {
        let file = temporaryDirectory() + "-token"
        if kind == "empty" { try "\n".write(toFile: file, atomically: true, encoding: .utf8) }
        let (status, output) = try await ChildProcess.run(
            [ApnsimProcess.executable.path, "gateway", "--development-port", "0", "--production-port", "0", "--control-port", "0",
             "--device-port", "0"], environment: ["APNSIM_CONTROL_TOKEN_FILE": file])
        #expect(status == .exited(1))
        #expect(output == "apnsim: APNSIM_CONTROL_TOKEN_FILE names \(file), \(ending)\n")
    }

    @Test("APNSIM_LOG_FORMAT=json: each log record and each line printed is one JSON object on standard output, its time RFC 3339")
    func jsonLogs() async throws {
        let nowhere = try ClosedPort()
        defer { nowhere.close() }
        let device = try await ApnsimProcess(["device", "--id", "json-{host}", "--device-port", String(nowhere.port), "--certs", "Certs",
                                              "--data", temporaryDirectory(), "--stop-when-stdin-closes"],
                                             environment: ["APNSIM_LOG_FORMAT": "json"])
        let printed = try await device.waitForOutput("device link failed")
        await device.stop()
        let records = try printed.split(whereSeparator: \.isNewline).map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let failure = try #require(records.first { $0["message"] as? String == "device link failed; retrying" })
        #expect(failure["level"] as? String == "warning")
        #expect(failure["label"] as? String == "apnsim.device")
        let metadata = try #require(failure["metadata"] as? [String: Any])
        #expect(metadata["device"] as? String == "json-\(ProcessInfo.processInfo.hostName)", "{host} is the host name")
        let time = try #require(failure["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)/) != nil, "\(time) is not RFC 3339 with its zone")
        #expect(records.contains { ($0["message"] as? String)?.contains("started, linking to") == true }, "what it prints is JSON too")
    }

    static func status(_ gateway: GatewayProcess, _ path: String, authorization: String?) async throws -> Int {
        try await gateway.control.get(path, headers: authorization.map { [("Authorization", $0)] } ?? []).status
    }
}
