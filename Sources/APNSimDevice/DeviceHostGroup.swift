import APNSimRules
import Foundation
import NIOConcurrencyHelpers

/// The devices one process hosts (`apnsim device --count`, a sandbox's devices): each names the group in its `hello`
/// (``id``), so the gateway may send a broadcast for several of them on one link (docs/device-link.md, "Carried
/// pushes"), and the device that gets it hands each push to the device it is for, here in the process.
///
/// With ``sharedLinks`` the devices share that many links to the gateway instead of one each (docs/device-link.md,
/// "Shared links"): ``run(sslContext:)`` keeps them up, and the devices' jobs run in one task.
public final class DeviceHostGroup: Sendable {
    public let id: String
    /// How many links the group's devices share; 0: each device has its own (``DeviceHost/run()``).
    public let sharedLinks: Int
    /// The jobs of every device of the group, when they share links.
    let sharedJobs: DeviceJobs?
    /// Where the group's devices keep what they keep across restarts, when they keep it together
    /// (``DeviceData/fleet(in:)``); `nil`: each in its own data folder.
    public let data: DeviceData?
    /// Read for the pushes of every carry, from each event loop of the process at once: a pthread mutex
    /// (`NIOLockedValueBox`), not `Synchronization.Mutex`, a priority-inheritance futex on Linux whose hand-over to a
    /// waiting thread goes through the kernel.
    private let hosts = NIOLockedValueBox<(byID: [String: DeviceHost], inOrder: [DeviceHost])>(([:], []))

    /// - Parameter sharedLinks: how many links the devices share; 0 gives each device its own.
    /// - Parameter data: where the devices keep their data together; `nil`: each in its own folder.
    public init(id: String = UUID().uuidString, sharedLinks: Int = 0, data: DeviceData? = nil) {
        self.id = id
        self.sharedLinks = sharedLinks
        self.data = data
        self.sharedJobs = sharedLinks > 0 ? DeviceJobs() : nil
    }

    /// A host joins as it is made (``DeviceHost/init(configuration:logger:tlsContext:)``).
    func add(_ host: DeviceHost) {
        hosts.withLockedValue { hosts in
            if hosts.byID.updateValue(host, forKey: host.configuration.device.id) == nil { hosts.inOrder.append(host) }
        }
    }

    /// The host of each of `devices`, in order (`nil` for one this process does not host), under one lock.
    func hosts(_ devices: some Sequence<String>) -> [DeviceHost?] {
        hosts.withLockedValue { hosts in devices.map { hosts.byID[$0] } }
    }

    /// The host of device `id`.
    func host(_ id: String) -> DeviceHost? {
        hosts.withLockedValue { $0.byID[id] }
    }

    /// Every host, in the order they joined.
    var members: [DeviceHost] {
        hosts.withLockedValue { $0.inOrder }
    }
}
