import APNSimGateway
import Foundation

/// An `apnsim device` process: the same binary users run, started against a test gateway.
struct DeviceProcess {
    let process: Process

    /// The `apnsim` executable SwiftPM built beside this test bundle.
    static var executable: URL {
        get throws {
            let directory = Bundle.main.executableURL?.deletingLastPathComponent()
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent("apnsim")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw DeviceProcessError(description: "no apnsim executable next to \(directory.path); build it with swift build")
        }
    }

    static func start(_ harness: GatewayHarness, id: String, data: String, extra: [String] = []) throws -> DeviceProcess {
        _ = TestPKI.deviceIdentity  // writes device.pem and device-key.pem into the test PKI folder
        let process = Process()
        process.executableURL = try executable
        process.arguments = ["device", "--id", id, "--device-port", String(harness.endpoints.devicePort!),
                             "--certs", harness.pki.directory.path, "--data", data] + extra
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return DeviceProcess(process: process)
    }

    /// Stops the process as Ctrl-C would and waits for it.
    func stop() {
        if process.isRunning { process.interrupt() }
        process.waitUntilExit()
    }

    struct DeviceProcessError: Error, CustomStringConvertible { var description: String }
}
