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
/// The validator reads a copy of the registry's world, published under a lock of its own by every event that changes
/// the world, before that event's lock is let go: reads see the world before or after an event, as before, and pushes
/// being validated do not wait for receipts and routing (with one lock for both they did, at every push). A
/// read copies the world (a few reference-count increments: its dictionaries are copy-on-write) and runs outside
/// the lock, so event loops validating pushes never wait for each other.
///
/// The registry's lock is a plain pthread mutex (`NIOLockedValueBox`), not `Synchronization.Mutex`, which on Linux is
/// a priority-inheritance futex: there a lock wanted by two event loops at once (a broadcast's shares on one, its
/// receipts on the other) is handed to the waiting thread through the kernel, and the one that let it go cannot take
/// it again until that thread has run. `Benchmarks/broadcast.sh 9 1000` medians: 30 ms broadcast, 57 ms single sends
/// before; 25 and 52 ms after.
public final class WorldRegistry: Sendable {
    private let state: NIOLockedValueBox<DeviceRegistry>
    private let published: Mutex<World>

    public init(_ world: World) {
        self.state = NIOLockedValueBox(DeviceRegistry(world: world))
        self.published = Mutex(world)
    }

    /// Runs `body` with the current world: the world as declared, with every token the gateway knows as its tokens.
    public func read<T>(_ body: (borrowing World) throws -> T) rethrows -> T {
        let world = snapshot
        return try body(world)
    }

    public var snapshot: World { published.withLock { $0 } }

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
    /// publishes the world for the validator if the event changed it.
    func change<T>(_ body: (inout DeviceRegistry) throws -> T) rethrows -> T {
        try state.withLockedValue { registry -> T in
            let revision = registry.worldRevision
            let result = try body(&registry)
            if registry.worldRevision != revision {
                let world = registry.validated
                published.withLock { $0 = world }
            }
            return result
        }
    }

    /// Reads the registry under the lock.
    func inspect<T>(_ body: (borrowing DeviceRegistry) -> T) -> T {
        state.withLockedValue { body($0) }
    }
}
