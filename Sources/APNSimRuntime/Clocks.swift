import Foundation
import APNSimRules
import Synchronization

extension WallClock {
    /// A clock that moves only when told: for tests.
    public static func manual(_ clock: ManualClock) -> WallClock {
        WallClock { clock.now }
    }

    /// The system's clock plus however far `clock` has been advanced: for scenario replays (`advance: 61m`).
    public static func virtual(_ clock: VirtualClock) -> WallClock {
        WallClock { clock.now }
    }
}

/// A clock that runs with the system's and can be moved ahead (`advance: 61m` in a scenario, `POST /v1/clock`):
/// token ages, stored pushes' expiry, background budgets and fault windows see the hour pass at once, while
/// everything measured in elapsed time (extension budgets, timeouts) keeps real time.
public final class VirtualClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    public var now: Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    /// How far ahead of the system's clock it is, in seconds.
    public var offsetSeconds: TimeInterval { offset.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }
}

/// A settable time source for ``WallClock/manual(_:)``.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
