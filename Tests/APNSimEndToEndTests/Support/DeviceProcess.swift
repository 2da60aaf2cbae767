import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation

/// An `apnsim device` process: the same binary users run, started against a test gateway.
struct DeviceProcess {
    let process: ApnsimProcess

    /// `data`: the `--data` folder; `nil` gives none, so the device keeps its identity where apnsim does by default
    /// (in `environment`'s `APNSIM_HOME`, which the test process points at its own folder).
    static func start(_ harness: GatewayHarness, id: String, data: String?, extra: [String] = [],
                      environment: [String: String?] = [:]) async throws -> DeviceProcess {
        try await start(devicePort: harness.endpoints.devicePort!, id: id, data: data, extra: extra, environment: environment)
    }

    static func start(devicePort: Int, id: String, data: String?, extra: [String] = [],
                      environment: [String: String?] = [:]) async throws -> DeviceProcess {
        _ = TestPKI.deviceIdentity  // writes device.pem and device-key.pem into the test PKI folder
        // --stop-when-stdin-closes: the device ends with this test process however it ends (a crash included), as
        // apnsim up's devices end with it; ApnsimProcess keeps its standard input open until then.
        return DeviceProcess(process: try await ApnsimProcess(["device", "--id", id, "--device-port", String(devicePort),
                                                         "--certs", TestPKI.shared.directory.path]
                                                        + (data.map { ["--data", $0] } ?? [])
                                                        + ["--stop-when-stdin-closes"] + hangGuardTimeouts + extra,
                                                        environment: environment))
    }

    /// What a test's device process waits for, unless `extra` says otherwise (a later option wins): the hang guard, as
    /// in-process test devices have (``deviceConfiguration(_:id:apps:)``).
    static let hangGuardTimeouts = ["--connect-timeout", String(HangGuard.limit.inSeconds),
                                    "--extension-budget", String(testExtensionBudget.inSeconds),
                                    "--extension-grace", String(HangGuard.limit.inSeconds)]

    /// Asks the process to stop as Ctrl-C would, without waiting (for a `defer`; `process.stop()` waits). One
    /// that does not stop is killed when the test lets go of it.
    func stop() {
        process.signal(SIGINT)
    }

    struct DeviceProcessError: Error, CustomStringConvertible { var description: String }
}
