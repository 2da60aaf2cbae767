import APNSimRules
import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// The live world of a running gateway, and the devices that hold its tokens: read on every request, changed
/// through the control API and by devices (registering and removing apps).
///
/// It keeps one ``DeviceRegistry`` (apps, keys, teams, tokens, devices, held pushes) under one lock, so what the
/// validator reads and what the router reads are one value. A lock, not an actor: the gateway reads it
/// synchronously on its event loops.
///
/// The validator reads a copy of the registry's world, kept under a lock of its own. An event that changes the world
/// drops that copy before its lock is let go, and the first read after it takes the registry's lock once to make the
/// next: reads see the world before or after an event, as before, and pushes being validated do not wait for receipts
/// and routing (with one lock for both they did, at every push). A read copies the world (a few reference-count
/// increments: its dictionaries are copy-on-write) and runs outside the lock, so event loops validating pushes never
/// wait for each other.
///
/// The copy is made when read, not on each change: while a copy holds the token table's shards, the next change to one
/// copies that shard (about N / 256 tokens). Published on every change, a million devices registering copied a shard
/// for each registration, 62 % of a replica's CPU (`perf`, docs/cluster.md); now a run of changes with no read between
/// them copies nothing.
///
/// The registry's lock is a plain pthread mutex (`NIOLockedValueBox`), not `Synchronization.Mutex`, which on Linux is
/// a priority-inheritance futex: there a lock wanted by two event loops at once (a broadcast's shares on one, its
/// receipts on the other) is handed to the waiting thread through the kernel, and the one that let it go cannot take
/// it again until that thread has run. `Benchmarks/broadcast.sh 9 1000` medians: 30 ms broadcast, 57 ms single sends
/// before; 25 and 52 ms after.
public final class WorldRegistry: Sendable {
    private let state: NIOLockedValueBox<DeviceRegistry>
    /// The validator's copy of the world; `nil` once an event has changed the world, until the next read makes it.
    private let published: Mutex<World?>

    public init(_ world: World) {
        self.state = NIOLockedValueBox(DeviceRegistry(world: world))
        self.published = Mutex(nil)
    }

    /// Runs `body` with the current world: the world as declared, with every token the gateway knows as its tokens.
    public func read<T>(_ body: (borrowing World) throws -> T) rethrows -> T {
        let world = snapshot
        return try body(world)
    }

    /// The world as of the last event. Made under the registry's lock when an event has changed it since the last read
    /// (never call it from inside ``change(_:)`` or ``inspect(_:)``: the lock is not reentrant).
    public var snapshot: World {
        if let world = published.withLock({ $0 }) { return world }
        return state.withLockedValue { registry in
            let world = registry.validated
            published.withLock { $0 = world }
            return world
        }
    }

    /// Changes the world's apps, keys or teams under the lock (its tokens: ``declare(_:now:)``).
    public func update<T>(_ body: (inout World) throws -> T) rethrows -> T {
        try change { registry -> T in try registry.changeWorld(body) }
    }

    /// Adds tokens to the token table as the world's own (``DeviceRegistry/declare(_:now:)``); the problems that
    /// kept every one of them out, as sentences, or none.
    public func declare(_ tokens: DeclaredTokens, now: Date) -> [String] {
        change { $0.declare(tokens, now: now) }
    }

    /// Puts the world back as it was loaded; devices still registered keep their tokens. (Held pushes are the
    /// gateway's to drop: `Gateway.reset()` does both.)
    public func reset() {
        change { $0.resetWorld() }
    }

    /// Runs one event of the registry under the lock (``DeviceDirectory`` does, and carries out what it returns), and
    /// drops the validator's copy of the world if the event changed it (the next read makes it again).
    func change<T>(_ body: (inout DeviceRegistry) throws -> T) rethrows -> T {
        try state.withLockedValue { registry -> T in
            let revision = registry.worldRevision
            let result = try body(&registry)
            if registry.worldRevision != revision {
                published.withLock { $0 = nil }
            }
            return result
        }
    }

    /// Reads the registry under the lock.
    func inspect<T>(_ body: (borrowing DeviceRegistry) -> T) -> T {
        state.withLockedValue { body($0) }
    }
}
