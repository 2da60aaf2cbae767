import APNSimRules
import APNSimStore
import Foundation
import Logging

/// This gateway as one replica of several on one store (docs/cluster.md): what the store tells of the others (a device
/// linked or unlinked there, pushes handed here, the record written) is carried out on the ``DeviceDirectory``, and a token another replica
/// registered is read from the store when a push names it (``adopt(_:)``).
struct ReplicaLinks: Sendable {
    let name: String
    let store: any ReplicaStore
    let directory: DeviceDirectory
    let clock: WallClock
    /// Another replica wrote to the record: this one's readers waiting for a change (long-polls, `GET /v1/events`) are
    /// woken, and read the shared record again.
    let recorded: @Sendable (ReplicaEvent.RecordKind) -> Void
    let logger: Logger

    /// A name for this replica when none is given: the host's name (a Kubernetes pod's), and the process's ID, so two
    /// gateways on one machine are two replicas.
    static var defaultName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// Carries out what the store tells until it stops telling (the store closed).
    func run() async {
        for await event in store.replicaEvents {
            switch event {
            case .listening:
                // Listening again: what changed while nobody listened is read whole.
                do {
                    directory.links(try await store.links(), now: clock.now())
                } catch {
                    logger.error("cannot read the replicas' links", metadata: ["error": "\(error)"])
                }
                await takeHandOffs()
            case .linked(let device, let replica) where replica != name:
                directory.linked(device, at: replica, now: clock.now())
            case .unlinked(let device, let replica) where replica != name:
                directory.unlinked(device, at: replica)
            case .handedOff(let replica) where replica == name:
                await takeHandOffs()
            case .recorded(let kind, let replica) where replica != name:
                recorded(kind)
            case .linked, .unlinked, .handedOff, .recorded:
                break  // this replica's own
            }
        }
    }

    private func takeHandOffs() async {
        do {
            let handOffs = try await store.takeHandOffs(for: name)
            if !handOffs.isEmpty { directory.take(handOffs, now: clock.now()) }
        } catch {
            // Taken again when the store is listening again, or with the next hand-off.
            logger.error("cannot take the pushes handed to this replica", metadata: ["error": "\(error)"])
        }
    }

    /// Learns `token` from the store when another replica registered it; returns whether it did.
    func adopt(_ token: DeviceToken) async -> Bool {
        do {
            guard let (registration, replica) = try await store.registration(of: token) else { return false }
            directory.adopt(registration, linkedTo: replica)
            return true
        } catch {
            logger.error("cannot read a token's registration", metadata: ["token": "\(token.short)", "error": "\(error)"])
            return false
        }
    }
}
