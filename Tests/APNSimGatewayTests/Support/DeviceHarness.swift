import APNSimCore
import APNSimDevice
import APNSimGateway
import Foundation
import Logging

/// Runs a simulated device (in this process, over the real device link and TLS) against a test gateway
/// until `body` returns.
func withDevice<T: Sendable>(_ harness: GatewayHarness, id: String = "device-1", dataDirectory: String? = nil,
                             apps: [AppManifest]? = nil, dropLinkBeforeAcknowledging: Int = 0, extensionBudget: Duration = .seconds(30),
                             configure: (inout DeviceHostConfiguration) -> Void = { _ in },
                             _ body: @escaping @Sendable (DeviceHost) async throws -> T) async throws -> T {
    var configuration = DeviceHostConfiguration(
        tls: .init(ca: harness.pki.caFile, certificate: TestPKI.deviceIdentity.certificate, privateKey: TestPKI.deviceIdentity.key),
        device: DeviceDescriptor(id: id, name: "Test iPhone \(id)"),
        apps: apps ?? [.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())])
    configuration.devicePort = harness.endpoints.devicePort!
    configuration.dataDirectory = dataDirectory
    configuration.dropLinkBeforeAcknowledging = dropLinkBeforeAcknowledging
    configuration.extensionBudget = extensionBudget
    configure(&configuration)
    var logger = Logger(label: "apnsim.device.test")
    logger.logLevel = .warning
    let host = DeviceHost(configuration: configuration, logger: logger)
    return try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask {
            try await host.run()
            return nil
        }
        await host.waitUntilRegistered()
        defer { tasks.cancelAll() }
        let result = try await body(host)
        return result
    }
}

/// A fresh folder for a device's data.
func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-device-\(UUID().uuidString)").path
}
