import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimRuntime
import APNSimTestSupport
import Foundation
import Logging

/// Runs a simulated device (in this process, over the real device link and TLS) against a test gateway
/// until `body` returns.
package func withDevice<T: Sendable>(_ harness: GatewayHarness, id: String = "device-1", dataDirectory: String? = nil,
                                     apps: [AppManifest]? = nil, dropLinkBeforeAcknowledging: Int = 0, extensionBudget: Duration = testExtensionBudget,
                                     configure: (inout DeviceHostConfiguration) -> Void = { _ in },
                                     _ body: @escaping @Sendable (DeviceHost) async throws -> T) async throws -> T {
    var configuration = deviceConfiguration(harness, id: id, apps: apps)
    configuration.dataDirectory = dataDirectory
    configuration.dropLinkBeforeAcknowledging = dropLinkBeforeAcknowledging
    configuration.extensionBudget = extensionBudget
    configure(&configuration)
    if configuration.group == nil, TestLinks.shared {
        configuration.group = DeviceHostGroup(sharedLinks: 1)  // the device's process shares its one link, as `apnsim device` does
    }
    let logger = testLogger("apnsim.device.test")
    let host = DeviceHost(configuration: configuration, logger: logger)
    return try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask {
            try await DeviceHostGroup.run([host], logger: logger)
            return nil
        }
        defer { tasks.cancelAll() }
        // A bound, so a registration that never comes fails the test instead of holding it forever; long enough for a
        // Swift extension's first build (at install) on a busy machine with a cold cache.
        guard await host.registers(within: HangGuard.limit) else { throw HarnessError("\(id) did not register within \(HangGuard.limit)") }
        let result = try await body(host)
        return result
    }
}

/// How the test devices link: over a link their process shares (the default, as `apnsim device` does), or with
/// `APNSIM_DEVICE_LINKS=0` each over its own, as the stress suite runs the end-to-end tests again
/// (docs/device-link.md, "Shared links").
package enum TestLinks {
    package static let shared = ProcessInfo.processInfo.environment["APNSIM_DEVICE_LINKS"] != "0"
}

/// A device of `harness`'s gateway with the test PKI's identity, with `apps` (by default com.example.app), on the
/// gateway's clock (one clock for the world, as a sandbox has: a device ending a Live Activity at the system's time
/// while the gateway's stood still disagreed about its dismissal once a slow test outran the clock's advances). Its
/// connect and its extensions' grace at expiry take as long as the hang guard: no test is about them.
package func deviceConfiguration(_ harness: GatewayHarness, id: String, apps: [AppManifest]? = nil) -> DeviceHostConfiguration {
    var configuration = DeviceHostConfiguration(
        tls: .init(ca: harness.pki.caFile, certificate: TestPKI.deviceIdentity.certificate, privateKey: TestPKI.deviceIdentity.key),
        device: DeviceDescriptor(id: id, name: "Test iPhone \(id)"),
        apps: apps ?? [.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())])
    configuration.devicePort = harness.endpoints.devicePort!
    configuration.clock = .manual(harness.clock)
    configuration.connectTimeout = HangGuard.limit
    configuration.extensionGrace = HangGuard.limit
    return configuration
}

/// The extension budget of test devices unless a test is about budgets: the hang guard, far beyond Apple's 30 s, so
/// no download or process start on a busy machine runs into it (a budget that expires is a verdict about speed).
package let testExtensionBudget: Duration = HangGuard.limit

/// A fresh folder for a device's data.
package func temporaryDirectory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-device-\(UUID().uuidString)").path
}

/// Runs devices `ids` of one process (one ``DeviceHostGroup``: over one link they share, or with
/// `APNSIM_DEVICE_LINKS=0` each over its own) against `harness`'s gateway until `body` returns.
package func withDevices<T: Sendable>(_ harness: GatewayHarness, ids: [String], groupID: String = UUID().uuidString,
                                      _ body: @escaping @Sendable ([DeviceHost]) async throws -> T) async throws -> T {
    let group = DeviceHostGroup(id: groupID, sharedLinks: TestLinks.shared ? 1 : 0)
    let logger = testLogger("apnsim.device.test")
    let hosts = ids.map { id in
        var configuration = deviceConfiguration(harness, id: id)
        configuration.group = group
        return DeviceHost(configuration: configuration, logger: logger)
    }
    return try await withThrowingTaskGroup(of: T?.self) { tasks in
        tasks.addTask {
            try await DeviceHostGroup.run(hosts, logger: logger)
            return nil
        }
        defer { tasks.cancelAll() }
        for host in hosts where !(await host.registers(within: HangGuard.limit)) {
            throw HarnessError("\(host.configuration.device.id) did not register within \(HangGuard.limit)")
        }
        return try await body(hosts)
    }
}
