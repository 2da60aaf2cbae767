import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimRuntime
import Foundation
import Logging
import ServiceLifecycle

/// The world's declared devices, started once the gateway listens and stopped on graceful shutdown.
struct SandboxDevices: Sendable {
    let configuration: Sandbox.Configuration
    let devicePort: Int
    let logger: Logger

    /// Starts the devices, calls `onRegistered` with those that did not register in time, and keeps them running
    /// until a graceful shutdown.
    func run(gateway: Gateway, onRegistered: @escaping @Sendable ([String]) async -> Void) async throws {
        let temporary = configuration.dataDirectory == nil
            ? FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-sandbox-\(UUID().uuidString)").path : nil
        let dataRoot = configuration.dataDirectory ?? temporary!
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        let specs = configuration.world.devices
        switch configuration.devices {
        case .inProcess:
            let hosts = try makeHosts(specs, dataRoot: dataRoot)
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await DeviceHostGroup.run(hosts, logger: logger) }
                    tasks.addTask { await onRegistered(await Self.waitUntilRegistered(hosts, timeout: configuration.registrationTimeout)) }
                    try await tasks.waitForAll()
                }
            }
        case .processes(let executable, let arguments):
            let processes = DeviceProcesses()
            do {
                try await processes.start(specs, executable: executable, world: configuration.world, devicePort: devicePort,
                                          certs: configuration.certs, dataRoot: dataRoot, connectTimeout: configuration.deviceConnectTimeout,
                                          links: configuration.deviceLinks, arguments: arguments)
                let registered = await processes.waitUntilRegistered(specs, gateway: gateway, timeout: configuration.registrationTimeout)
                let status = Set(gateway.deviceStatus.filter(\.online).map(\.descriptor.id))
                await onRegistered(registered ? [] : specs.flatMap(\.deviceIDs).filter { !status.contains($0) })
                try? await gracefulShutdown()
            } catch {
                await processes.stop()
                throw error
            }
            await processes.stop()
        }
    }

    /// One device host per declared device, each app signed by its own team, with its extension and resources.
    private func makeHosts(_ specs: [World.DeviceSpec], dataRoot: String) throws -> [DeviceHost] {
        guard !specs.isEmpty else { return [] }
        let tls = DeviceHostConfiguration.TLSFiles.certsDirectory(configuration.certs)
        let context = try DeviceHost.makeTLSContext(tls)
        let world = configuration.world
        // The devices of this process form a group: they share links (unless `deviceLinks` is 0), and a broadcast for
        // several of them comes on one link.
        let group = DeviceHostGroup(sharedLinks: configuration.deviceLinks ?? Sandbox.Configuration.defaultDeviceLinks)
        return specs.flatMap { spec in World.DeviceSpec.fleet(id: spec.id, name: spec.name, count: spec.count).map { id, name in
            let apps = spec.apps.map { app in
                AppManifest.installed(bundleID: app.bundleID, environment: app.environment, declared: world.apps[app.bundleID], now: Date())
            }
            var device = DeviceHostConfiguration(
                tls: tls, device: DeviceDescriptor(id: id, name: name,
                                                   model: spec.model ?? DeviceDescriptor.defaultModel, os: spec.os ?? DeviceDescriptor.defaultOS),
                apps: apps)
            device.gatewayHost = configuration.gateway.host
            device.devicePort = devicePort
            device.dataDirectory = URL(fileURLWithPath: dataRoot).appendingPathComponent(id).path
            device.alertsOff = Set(spec.apps.filter { $0.alerts == false }.map(\.bundleID))
            device.extensionCategoriesApply = spec.extensionCategoriesApply ?? false
            if let budget = spec.extensionBudget { device.extensionBudget = .milliseconds(Int64(budget * 1000)) }
            if let clock = configuration.virtualClock { device.clock = .virtual(clock) }
            if let connectTimeout = configuration.deviceConnectTimeout { device.connectTimeout = connectTimeout }
            device.group = group
            return DeviceHost(configuration: device, logger: logger, tlsContext: context)
        } }
    }

    /// Waits until every host has each app registered or refused; returns the IDs of those that had not by `timeout`.
    static func waitUntilRegistered(_ hosts: [DeviceHost], timeout: Duration) async -> [String] {
        await withTaskGroup(of: String?.self) { tasks in
            for host in hosts {
                tasks.addTask { await host.registers(within: timeout) ? nil : host.configuration.device.id }
            }
            var missing: [String] = []
            for await id in tasks { if let id { missing.append(id) } }
            return missing.sorted()
        }
    }
}
