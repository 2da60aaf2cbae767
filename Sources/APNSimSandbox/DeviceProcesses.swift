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

    /// Starts one process per declared device; each keeps its data under `dataRoot/<id>`.
    func start(_ devices: [World.DeviceSpec], executable: String, world: World, devicePort: Int, certs: String,
               dataRoot: String, connectTimeout: Duration? = nil, links: Int? = nil, arguments extra: [String] = []) async throws {
        for device in devices {
            var arguments = ["device", "--stop-when-stdin-closes", "--id", device.id, "--name", device.name,
                             "--device-port", String(devicePort), "--certs", certs,
                             "--data", URL(fileURLWithPath: dataRoot).appendingPathComponent(device.id).path]
            if let count = device.count, count > 1 { arguments += ["--count", String(count)] }
            if let model = device.model { arguments += ["--model", model] }
            if let os = device.os { arguments += ["--os", os] }
            if device.extensionCategoriesApply == true { arguments.append("--extension-categories-apply") }
            if let budget = device.extensionBudget { arguments += ["--extension-budget", String(budget)] }
            if let connectTimeout { arguments += ["--connect-timeout", String(connectTimeout.inSeconds)] }
            if let links { arguments += ["--links", String(links)] }
            // The apps it installs, each as the world declares it, whole: one type from the world file to the device.
            let declared = device.apps.compactMap { world.apps[$0.bundleID] }
            arguments += ["--declared", String(decoding: try JSONEncoder().encode(declared), as: UTF8.self)]
            for app in device.apps {
                arguments += ["--app", "\(app.bundleID):\(app.environment.rawValue)"]
                if app.alerts == false { arguments += ["--alerts-off", app.bundleID] }
            }
            let process = try await ChildProcess.start([executable] + arguments + extra) { stream, bytes in
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
