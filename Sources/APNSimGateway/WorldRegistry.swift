import APNSimCore
import Foundation
import Synchronization

/// The live world of a running gateway, and the devices that hold its tokens: read on every request, changed
/// through the control API and by devices (registering and removing apps).
///
/// It keeps one ``DeviceRegistry`` (apps, keys, teams, tokens, devices, held pushes) under one lock, so what the
/// validator reads and what the router reads are one value. A lock, not an actor: the gateway reads it
/// synchronously on its event loops. A read copies the world under the lock (a few reference-count increments: its
/// dictionaries are copy-on-write) and runs outside it, so event loops validating pushes never wait for each other.
public final class WorldRegistry: Sendable {
    private let state: Mutex<DeviceRegistry>

    public init(_ world: World) {
        self.state = Mutex(DeviceRegistry(world: world))
    }

    /// Runs `body` with the current world.
    public func read<T>(_ body: (borrowing World) throws -> T) rethrows -> T {
        let world = snapshot
        return try body(world)
    }

    public var snapshot: World { state.withLock { $0.world } }

    /// Changes the world's apps, keys, teams or declared tokens under the lock.
    public func update<T>(_ body: (inout World) throws -> T) rethrows -> T {
        try state.withLock { registry -> sending T in try registry.changeWorld(body) }
    }

    /// Puts the world back as it was loaded; devices still registered keep their tokens. (Held pushes are the
    /// gateway's to drop: `Gateway.reset()` does both.)
    public func reset() {
        state.withLock { $0.resetWorld() }
    }

    /// Runs one event of the registry under the lock (``DeviceDirectory`` does, and carries out what it returns).
    func change<T>(_ body: (inout DeviceRegistry) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    /// Reads the registry under the lock.
    func inspect<T>(_ body: (borrowing DeviceRegistry) -> T) -> T {
        state.withLock { body($0) }
    }
}
