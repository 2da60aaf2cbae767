import APNSimRules
import NIOCore
import Synchronization

/// Every open provider connection, so a fault can act on all of them at once (GOAWAY now, a dropped connection,
/// new SETTINGS).
final class ProviderConnections: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Keeps `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.channels.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// How many are open now.
    var count: Int { channels.withLock { $0.count } }

    /// Hands `fault` to every open connection's ``ProviderConnectionHandler`` and returns once each has acted
    /// (its GOAWAY or SETTINGS written), so a provider's next request comes after them.
    func broadcast(_ fault: Fault) async {
        for channel in channels.withLock({ Array($0.values) }) {
            try? await channel.eventLoop.submit {
                channel.pipeline.syncOperations.fireUserInboundEventTriggered(InjectedFault(fault: fault))
            }.get()
        }
    }
}

/// A fault acting on a whole connection, sent down its pipeline.
struct InjectedFault: Sendable {
    let fault: Fault
}
