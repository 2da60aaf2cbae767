import APNSimCore
import Foundation
import Synchronization

/// The devices one process hosts (`apnsim device --count`, a sandbox's devices): each names the group in its `hello`
/// (``id``), so the gateway may send a broadcast for several of them on one link (docs/device-link.md, "Carried
/// pushes"), and the device that gets it hands each push to the device it is for, here in the process.
public final class DeviceHostGroup: Sendable {
    public let id: String
    private let hosts = Mutex<[String: DeviceHost]>([:])

    public init(id: String = UUID().uuidString) {
        self.id = id
    }

    /// A host joins as it is made (``DeviceHost/init(configuration:logger:tlsContext:)``).
    func add(_ host: DeviceHost) {
        hosts.withLock { $0[host.configuration.device.id] = host }
    }

    func host(_ device: String) -> DeviceHost? {
        hosts.withLock { $0[device] }
    }
}
