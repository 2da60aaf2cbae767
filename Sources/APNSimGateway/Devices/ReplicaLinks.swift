import APNSimRules
import APNSimStore
import Foundation
import Logging
import Synchronization

/// This gateway as one replica of several on one store (docs/cluster.md): what the store tells of the others (a device
/// linked or unlinked there, pushes handed here, the record written) is carried out on the ``DeviceDirectory``, and a token another replica
/// registered is read from the store when a push names it (``adopt(_:)``).
final class ReplicaLinks: Sendable {
    let name: String
    let store: any ReplicaStore
    let directory: DeviceDirectory
    let clock: WallClock
    /// Another replica wrote to the record: this one's readers waiting for a change (long-polls, `GET /v1/events`) are
    /// woken, and read the shared record again.
    let recorded: @Sendable (ReplicaEvent.RecordKind) -> Void
    let logger: Logger
    /// The rows of the hand-offs being carried out, until they are gone from the store, and the last row read.
    private let taking = Mutex(HandOffsTaken())
    /// The row of the last shared broadcast read (``takeBroadcasts()``); `nil` until this replica first listens.
    private let broadcastsRead = Mutex<Int64?>(nil)

    init(name: String, store: any ReplicaStore, directory: DeviceDirectory, clock: WallClock,
         recorded: @escaping @Sendable (ReplicaEvent.RecordKind) -> Void, logger: Logger) {
        (self.name, self.store, self.directory, self.clock, self.recorded, self.logger) = (name, store, directory, clock, recorded, logger)
    }

    /// A name for this replica when none is given: the host's name (a Kubernetes pod's), and the process's ID, so two
    /// gateways on one machine are two replicas.
    static var defaultName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }

    /// How often a replica looks for replicas that are gone, whose pushes it takes over (``ReplicaStore/claimOrphans()``).
    static let sweepInterval: Duration = .seconds(1)

    /// Carries out what the store tells until it stops telling (the store closed), and takes over what replicas that
    /// are gone left, until cancelled.
    func run() async {
        await withDiscardingTaskGroup { tasks in
            tasks.addTask { await self.sweep() }
            await listen()
            tasks.cancelAll()
        }
    }

    /// Every ``sweepInterval``: the pushes of replicas that are gone are handed to this one, and taken.
    private func sweep() async {
        while !Task.isCancelled {
            do {
                _ = try await store.claimOrphans()
                // Every row still to be carried out, looked at whole: one committed after a later row was read (two
                // replicas handing at once) is found here, as are those taken over from a replica that is gone.
                await takeHandOffs(whole: true)
            } catch {
                logger.debug("cannot look for replicas that are gone", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: Self.sweepInterval)
        }
    }

    private func listen() async {
        for await event in store.replicaEvents {
            switch event {
            case .listening:
                // Listening again: what changed while nobody listened is read whole.
                do {
                    directory.links(try await store.links(), now: clock.now())
                    directory.removedElsewhere(try await store.removedRegistrations())
                    directory.channels(try await store.channels())
                } catch {
                    logger.error("cannot read the replicas' links", metadata: ["error": "\(error)"])
                }
                await takeHandOffs(whole: true)
                await takeBroadcasts()
            case .linked(let devices, let replica) where replica != name:
                directory.linked(devices, at: replica, now: clock.now())
            case .unlinked(let device, let replica) where replica != name:
                directory.unlinked(device, at: replica)
            case .handedOff(let replica) where replica == name:
                await takeHandOffs()
            case .unregistered(let token, let replica) where replica != name:
                await removed(token)
            case .recorded(let kind, let replica) where replica != name:
                recorded(kind)
            case .channelCreated(let id, let replica) where replica != name:
                _ = await refreshChannel(id)
            case .channelDeleted(let id, let replica) where replica != name:
                directory.deleteChannel(id, told: false)
            case .broadcastShared(let replica) where replica != name:
                await takeBroadcasts()
            case .linked, .unlinked, .handedOff, .recorded, .unregistered, .channelCreated, .channelDeleted, .broadcastShared:
                break  // this replica's own
            }
        }
    }

    /// Carries out the pushes handed here that are not yet on their way: each stays in the store until the batch that
    /// records what it became commits (``DeliveryEvent/handOffDone(row:)``), and is not taken again meanwhile
    /// (``HandOffsTaken``). On word of a hand-off, the rows after the last one read; `whole`, the rows up to it still
    /// there, by number first, so only those not yet taken are read (one committed after a later row was read: two
    /// replicas handing at once), then the rows after it (those taken over from a replica that is gone are not told).
    /// Reading every row on each word made a backlog of 10,000 hand-offs (a third of 200,000 devices' pushes through
    /// each of three replicas) read again with every commit of another replica, and grow.
    private func takeHandOffs(whole: Bool = false) async {
        do {
            if whole {
                let started = taking.withLock { $0.startSweep() }
                let present = try await store.handOffRows(for: name)
                let missing = taking.withLock { $0.sweep(present: present, since: started) }
                if !missing.isEmpty {
                    let found = try await store.handOffs(for: name, rows: missing)
                    take(found) { taking, rows in taking.whole(rows) }
                }
            }
            let read = taking.withLock { $0.read }
            take(try await store.handOffs(for: name, after: read)) { taking, rows in taking.incremental(rows) }
        } catch {
            // Taken again with the next sweep, or when the store is listening again.
            logger.error("cannot take the pushes handed to this replica", metadata: ["error": "\(error)"])
        }
    }

    /// Takes those of `handOffs` whose rows `mine` takes (those not being carried out, of this read's rows).
    private func take(_ handOffs: [HandOff], _ mine: (inout HandOffsTaken, [Int64]) -> [Int64]) {
        let rows = Set(taking.withLock { mine(&$0, handOffs.compactMap(\.row)) })
        let fresh = handOffs.filter { $0.row.map(rows.contains) ?? false }
        if !fresh.isEmpty { directory.take(fresh, now: clock.now()) }
    }

    /// Fans out the broadcasts other replicas shared since the last read (docs/cluster.md, "Broadcasts across replicas").
    /// The first read, as this replica starts, fans out none (no device is linked here yet): it keeps each channel's
    /// stored message.
    private func takeBroadcasts() async {
        do {
            let read = broadcastsRead.withLock { $0 }
            let shared = try await store.broadcasts(after: read ?? 0)
            if let last = shared.last?.row { broadcastsRead.withLock { $0 = max($0 ?? 0, last) } }
            guard read != nil else {
                broadcastsRead.withLock { $0 = $0 ?? 0 }
                directory.keepStored(shared, now: clock.now())
                return
            }
            let others = shared.filter { $0.replica != name }
            for id in Set(others.map(\.channel)) where !directory.knowsChannel(id) { _ = await refreshChannel(id) }
            directory.broadcasts(others)
        } catch {
            // Read again with the next broadcast, or when the store is listening again.
            logger.error("cannot read the broadcasts other replicas shared", metadata: ["error": "\(error)"])
        }
    }

    /// Channel `id` as the store has it now: learned when another replica created it, forgotten when one deleted it, so a
    /// request naming it is answered as by the replica that changed it. Returns whether the store could be read (if not,
    /// the channel stays as this replica last heard).
    func refreshChannel(_ id: String) async -> Bool {
        do {
            if let channel = try await store.channel(id) {
                directory.channelCreatedElsewhere(channel)
            } else if directory.knowsChannel(id) {
                directory.deleteChannel(id, told: false)
            }
            return true
        } catch {
            logger.error("cannot read a broadcast channel", metadata: ["channel": "\(id)", "error": "\(error)"])
            return false
        }
    }

    /// Another replica removed the app of `token` (hex): read from the store, with when it answers 410.
    private func removed(_ token: String) async {
        guard let token = DeviceToken(token) else { return }
        do {
            if let (registration, _) = try await store.registration(of: token) { directory.removedElsewhere([registration]) }
        } catch {
            // Read again with every removal when the store is listening again.
            logger.error("cannot read a removed app's registration", metadata: ["token": "\(token.short)", "error": "\(error)"])
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
