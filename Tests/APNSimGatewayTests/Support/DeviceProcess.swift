import APNSimGateway
import Foundation

/// An `apnsim device` process: the same binary users run, started against a test gateway.
struct DeviceProcess {
    let process: ApnsimProcess

    static func start(_ harness: GatewayHarness, id: String, data: String, extra: [String] = []) throws -> DeviceProcess {
        try start(devicePort: harness.endpoints.devicePort!, id: id, data: data, extra: extra)
    }

    static func start(devicePort: Int, id: String, data: String, extra: [String] = []) throws -> DeviceProcess {
        _ = TestPKI.deviceIdentity  // writes device.pem and device-key.pem into the test PKI folder
        return DeviceProcess(process: try ApnsimProcess(["device", "--id", id, "--device-port", String(devicePort),
                                                         "--certs", TestPKI.shared.directory.path, "--data", data] + extra))
    }

    /// Stops the process as Ctrl-C would and waits for it.
    func stop() {
        process.stop()
    }

    struct DeviceProcessError: Error, CustomStringConvertible { var description: String }
}
