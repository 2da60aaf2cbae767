import APNSimDevice
import APNSimRules
import APNSimExtensions
import APNSimGateway
import Foundation
import Synchronization

/// The device processes a sandbox starts from the world's `devices:` (as `apnsim up` does), one `apnsim device` each.
///
/// Each device's standard input is a pipe from this process that is never written to and never closed: it closes
/// when this process ends, however it ends, and each device stops then (`--stop-when-stdin-closes`), so none is left
/// orphaned. A device's logs (its standard error) show in this process's; what it prints is dropped.
final class DeviceProcesses: Sendable {
    private let processes = Mutex<[ChildProcess]>([])

    /// Starts one `apnsim device` process per declared device, each given its fleet in a file (`--config`, in
    /// `dataRoot/fleets`); each keeps its data under `dataRoot/<id>`. `arguments` go after (the log options).
    func start(_ devices: [World.DeviceSpec], executable: String, world: World, gateway: DeviceFleet.Gateway, certs: String,
               dataRoot: String, connectTimeout: Duration? = nil, links: Int? = nil, arguments extra: [String] = []) async throws {
        let folder = URL(fileURLWithPath: dataRoot).appendingPathComponent("fleets")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for device in devices {
            var fleet = DeviceFleet(device, world: world, gateway: gateway, data: URL(fileURLWithPath: dataRoot).appendingPathComponent(device.id).path,
                                    links: links, connectTimeout: connectTimeout)
            fleet.certs = certs
            let file = folder.appendingPathComponent("\(device.id).json")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(fleet).write(to: file)
            let process = try await ChildProcess.start([executable, "device", "--config", file.path, "--stop-when-stdin-closes"] + extra) { stream, bytes in
                if stream == .standardError { try? FileHandle.standardError.write(contentsOf: bytes) }
            }
            processes.withLock { $0.append(process) }
        }
    }

    /// Waits until every device in `ids` is online with a token for each of its apps, or `timeout` passes.
    func waitUntilRegistered(_ devices: [World.DeviceSpec], gateway: Gateway, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if gateway.unregistered(devices).isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(50))  // child processes starting: nothing to long-poll on
        }
        return false
    }

    /// Stops every device process and waits for it.
    func stop() async {
        let running = processes.withLock { $0 }
        for process in running { process.signal(SIGTERM) }
        for process in running { await process.waitForExit() }
    }
}
