import Foundation
import Synchronization

/// Where apnsim's rules get the current time. Injected everywhere a rule depends on time (token ages,
/// expiration dates, 410 timestamps), so tests move time instead of waiting for it.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    public func now() -> Date { read() }

    /// The system's clock.
    public static let system = WallClock { Date() }

    /// A clock that moves only when told: for tests.
    public static func manual(_ clock: ManualClock) -> WallClock {
        WallClock { clock.now }
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
