import APNSimCore
import Foundation
import Synchronization

/// The live world of a running gateway: read on every request, changed through the control API.
///
/// A lock, not an actor: the gateway reads it synchronously on its event loops. A read copies the world under
/// the lock (a few reference-count increments: its dictionaries are copy-on-write) and runs outside it, so
/// event loops validating pushes never wait for each other.
public final class WorldRegistry: Sendable {
    private let state: Mutex<World>
    private let initial: World

    public init(_ world: World) {
        self.state = Mutex(world)
        self.initial = world
    }

    /// Runs `body` with the current world.
    public func read<T>(_ body: (borrowing World) throws -> T) rethrows -> T {
        let world = snapshot
        return try body(world)
    }

    public var snapshot: World { state.withLock { $0 } }

    /// Changes the world under the lock.
    public func update<T>(_ body: (inout World) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    /// Marks an active token unregistered from `date` on (a 410 answers with it as `timestamp`); a token already
    /// unregistered keeps its date.
    public func unregister(_ token: DeviceToken, at date: Date) {
        update { world in
            guard world.tokens[token]?.state == .active else { return }
            world.tokens[token]?.state = .unregistered
            world.tokens[token]?.invalidSince = date
        }
    }

    /// Puts the world back as it was loaded.
    public func reset() {
        state.withLock { $0 = initial }
    }
}
