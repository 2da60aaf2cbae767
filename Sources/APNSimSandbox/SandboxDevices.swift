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
                try await processes.start(specs, executable: executable, world: configuration.world,
                                          gateway: .init(host: configuration.gateway.host, port: devicePort), certs: configuration.certs,
                                          dataRoot: dataRoot, connectTimeout: configuration.deviceConnectTimeout,
                                          links: configuration.deviceLinks ?? Sandbox.Configuration.defaultDeviceLinks, arguments: arguments)
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

    /// One device host per declared device, each app signed by its own team, with its extension and resources: each
    /// declared device a fleet (``DeviceFleet``), as a device process gets it, in one group for the whole process.
    private func makeHosts(_ specs: [World.DeviceSpec], dataRoot: String) throws -> [DeviceHost] {
        guard !specs.isEmpty else { return [] }
        let context = try DeviceHost.makeTLSContext(.certsDirectory(configuration.certs))
        // The devices of this process form a group: they share links (unless `deviceLinks` is 0), and a broadcast for
        // several of them comes on one link.
        let links = configuration.deviceLinks ?? Sandbox.Configuration.defaultDeviceLinks
        let group = DeviceHostGroup(sharedLinks: links)
        let clock = configuration.virtualClock.map { WallClock.virtual($0) } ?? .system
        return try specs.flatMap { spec in
            // Each declared device's data where a device process keeps it: `dataRoot/<id>` (and a folder for each of
            // several devices inside it).
            let fleet = DeviceFleet(spec, world: configuration.world, gateway: .init(host: configuration.gateway.host, port: devicePort),
                                    data: URL(fileURLWithPath: dataRoot).appendingPathComponent(spec.id).path, links: links,
                                    connectTimeout: configuration.deviceConnectTimeout)
            return try fleet.hosts(certs: configuration.certs, tlsContext: context, group: group, clock: clock, logger: logger)
        }
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
