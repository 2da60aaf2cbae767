import Foundation

/// One Live Activity on a device and the rules iOS applies to it (Apple, "Starting and updating Live Activities with
/// ActivityKit push notifications" and "Displaying live data with Live Activities",
/// https://developer.apple.com/documentation/activitykit/displaying-live-data-with-live-activities). A value: the
/// device holds it, and pushes and time change it through ``apply(_:now:)`` and ``age(now:)``.
public struct LiveActivity: Sendable, Hashable, Codable {
    public var id: String
    public var bundleID: String
    public var attributesType: String
    public var attributes: [String: JSONValue]
    /// The activity's own push token (`Activity.pushToken`), which `liveactivity` pushes for it are sent to.
    public var pushToken: DeviceToken?
    /// The broadcast channel it is subscribed to instead of a push token (`pushType: .channel(_:)`, iOS 18).
    public var channelID: String?
    public var contentState: [String: JSONValue]
    public var startedAt: Date
    /// The `timestamp` of the last push applied (the start's, for one started by push).
    public var timestamp: Date?
    public var staleDate: Date?
    public var relevanceScore: Double?
    /// When it ended (by push, by the app, or at ``maximumDuration``); `nil` while it runs.
    public var endedAt: Date?
    /// When an ended activity leaves the Lock Screen.
    public var dismissalDate: Date?

    /// iOS ends an activity eight hours after it started (Apple, "Displaying live data with Live Activities").
    public static let maximumDuration: TimeInterval = 8 * 3600
    /// How long an ended activity stays on the Lock Screen when the end names no `dismissal-date`: four hours
    /// (Apple, "Starting and updating Live Activities with ActivityKit push notifications").
    public static let defaultDismissal: TimeInterval = 4 * 3600

    public init(id: String, bundleID: String, attributesType: String, attributes: [String: JSONValue],
                contentState: [String: JSONValue], startedAt: Date, pushToken: DeviceToken? = nil, timestamp: Date? = nil,
                staleDate: Date? = nil, relevanceScore: Double? = nil, channelID: String? = nil) {
        self.pushToken = pushToken
        self.channelID = channelID
        self.id = id
        self.bundleID = bundleID
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        self.startedAt = startedAt
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }

    /// What a push did to the activity.
    public enum Applied: Sendable, Hashable {
        case updated
        case ended
        /// Not applied, and why in a sentence (an older timestamp, an activity already ended).
        case ignored(String)
    }

    public var isEnded: Bool { endedAt != nil }

    /// Past its `stale-date`: iOS shows it as out of date until an update brings a new one.
    public func isStale(at now: Date) -> Bool {
        staleDate.map { $0 <= now } ?? false
    }

    /// Still on the Lock Screen: running, or ended and not yet dismissed.
    public func isVisible(at now: Date) -> Bool {
        guard isEnded else { return true }
        return dismissalDate.map { now < $0 } ?? true
    }

    /// Applies an `update` or `end` (a `start` makes a new activity instead). A push older than the last applied one
    /// is ignored, as is any push after the end. Apple is silent on a push with the same timestamp as the last:
    /// apnsim applies it (only an older one is ignored), since providers that stamp whole seconds send several a
    /// second.
    public mutating func apply(_ push: ActivityPush, now: Date) -> Applied {
        if isEnded {
            return .ignored("the activity ended at \(Self.text(endedAt!)); iOS ignores pushes to an ended activity")
        }
        if let timestamp, push.timestamp < timestamp {
            return .ignored("its timestamp \(Self.text(push.timestamp)) is older than the last applied, \(Self.text(timestamp))")
        }
        timestamp = push.timestamp
        if let state = push.contentState { contentState = state }
        if let stale = push.staleDate { staleDate = stale }
        if let score = push.relevanceScore { relevanceScore = score }
        switch push.event {
        case .start, .update:
            return .updated
        case .end:
            end(at: now, dismissal: push.dismissalDate)
            return .ended
        }
    }

    /// Ends the activity (an `end` push, or the app's `end(_:dismissalPolicy:)`): it stays visible until `dismissal`
    /// (at once when that is past), by default for ``defaultDismissal``.
    public mutating func end(at now: Date, dismissal: Date?) {
        endedAt = now
        dismissalDate = dismissal.map { max($0, now) } ?? now.addingTimeInterval(Self.defaultDismissal)
    }

    /// The app ends it (`Activity.end(_:dismissalPolicy:)`), with a final content state or the last one. Ending an
    /// activity that has ended changes nothing; returns whether it ended now.
    public mutating func endByApp(contentState: [String: JSONValue]?, dismissal: Date?, at now: Date) -> Bool {
        guard !isEnded else { return false }
        if let contentState { self.contentState = contentState }
        end(at: now, dismissal: dismissal)
        return true
    }

    /// What time alone does: an activity still running ``maximumDuration`` after it started ends then. Returns whether
    /// it ended now.
    public mutating func age(now: Date) -> Bool {
        let limit = startedAt.addingTimeInterval(Self.maximumDuration)
        guard !isEnded, now >= limit else { return false }
        end(at: limit, dismissal: nil)
        return true
    }

    private static func text(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
