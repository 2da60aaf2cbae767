import Foundation

/// How much of the record a gateway keeps: the newest sends and deliveries up to a count each, and optionally
/// nothing older than an age. Without limits a sandbox or CI world left running under load grows until the
/// machine runs out (about 1.1 KB per accepted push); the oldest records go first, in batches, on the writer.
public struct RecordLimits: Sendable, Hashable {
    /// Sends kept; `nil` keeps all.
    public var sends: Int? = 100_000
    /// Deliveries kept; `nil` keeps all.
    public var deliveries: Int? = 100_000
    /// Connection records kept (refused handshakes, GOAWAYs: ``ConnectionRecord``); `nil` keeps all.
    public var connections: Int? = 10_000
    /// Records older than this many seconds are dropped; `nil` keeps them whatever their age.
    public var maximumAge: TimeInterval?

    public init() {}

    /// No limit at all.
    public static let unlimited: RecordLimits = {
        var limits = RecordLimits()
        limits.sends = nil
        limits.deliveries = nil
        limits.connections = nil
        return limits
    }()
}
