import Foundation

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
}
