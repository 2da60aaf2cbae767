import APNSimCore
import Foundation
import NIOConcurrencyHelpers

/// The devices one process hosts (`apnsim device --count`, a sandbox's devices): each names the group in its `hello`
/// (``id``), so the gateway may send a broadcast for several of them on one link (docs/device-link.md, "Carried
/// pushes"), and the device that gets it hands each push to the device it is for, here in the process.
public final class DeviceHostGroup: Sendable {
    public let id: String
    /// Read for the pushes of every carry, from each event loop of the process at once: a pthread mutex
    /// (`NIOLockedValueBox`), not `Synchronization.Mutex`, a priority-inheritance futex on Linux whose hand-over to a
    /// waiting thread goes through the kernel.
    private let hosts = NIOLockedValueBox<[String: DeviceHost]>([:])

    public init(id: String = UUID().uuidString) {
        self.id = id
    }

    /// A host joins as it is made (``DeviceHost/init(configuration:logger:tlsContext:)``).
    func add(_ host: DeviceHost) {
        hosts.withLockedValue { $0[host.configuration.device.id] = host }
    }

    /// The host of each of `devices`, in order (`nil` for one this process does not host), under one lock.
    func hosts(_ devices: some Sequence<String>) -> [DeviceHost?] {
        hosts.withLockedValue { hosts in devices.map { hosts[$0] } }
    }
}
