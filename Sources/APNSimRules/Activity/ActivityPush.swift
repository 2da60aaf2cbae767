import Foundation

/// What a `liveactivity` push asks of an activity, read from its `aps` the way ActivityKit reads it (Apple, "Starting
/// and updating Live Activities with ActivityKit push notifications",
/// https://developer.apple.com/documentation/activitykit/starting-and-updating-live-activities-with-activitykit-push-notifications).
/// Dates are seconds since 1970, as the payload writes them.
public struct ActivityPush: Sendable, Hashable {
    public enum Event: String, Sendable, Hashable, Codable, CaseIterable {
        /// Push-to-start (iOS 17.2): sent to the app's push-to-start token, starts a new activity.
        case start
        case update
        case end
    }

    public var event: Event
    /// When the provider made this state; a push older than the last one applied is ignored.
    public var timestamp: Date
    /// The activity's new dynamic state, which must decode as the attributes type's `ContentState`.
    public var contentState: [String: JSONValue]?
    public var staleDate: Date?
    /// When an ended activity leaves the Lock Screen; in the past: at once.
    public var dismissalDate: Date?
    public var relevanceScore: Double?
    /// An alert to light the screen with (`title`, `body`, `sound`); required to start an activity.
    public var alert: JSONValue?
    /// Push-to-start only: the `ActivityAttributes` type's name and its static attributes.
    public var attributesType: String?
    public var attributes: [String: JSONValue]?
    /// Push-to-start only (iOS 18): `input-push-token: 1` asks the new activity for an update token;
    /// `input-push-channel` subscribes it to a broadcast channel instead.
    public var inputPushToken: Bool
    public var inputPushChannel: String?

    /// Reads `aps`; throws with a sentence naming the key when the push cannot be a Live Activity push.
    public init(aps: [String: JSONValue]) throws(ActivityPushError) {
        guard let eventName = aps["event"] else { throw ActivityPushError("aps has no event (start, update or end)") }
        guard let event = eventName.string.flatMap(Event.init(rawValue:)) else {
            throw ActivityPushError("aps.event is \(eventName.jsonText), not start, update or end")
        }
        self.event = event
        guard let timestamp = aps["timestamp"] else { throw ActivityPushError("aps has no timestamp") }
        self.timestamp = try Self.date(timestamp, "timestamp")
        contentState = try Self.object(aps["content-state"], "content-state")
        staleDate = try aps["stale-date"].map { value throws(ActivityPushError) in try Self.date(value, "stale-date") }
        dismissalDate = try aps["dismissal-date"].map { value throws(ActivityPushError) in try Self.date(value, "dismissal-date") }
        switch aps["relevance-score"] {
        case nil: relevanceScore = nil
        case .number(let score)?: relevanceScore = score
        case let other?: throw ActivityPushError("aps.relevance-score is \(other.jsonText), not a number")
        }
        alert = aps["alert"]
        switch aps["attributes-type"] {
        case nil: attributesType = nil
        case .string(let name)?: attributesType = name
        case let other?: throw ActivityPushError("aps.attributes-type is \(other.jsonText), not a string")
        }
        attributes = try Self.object(aps["attributes"], "attributes")
        inputPushToken = aps["input-push-token"]?.integer == 1
        switch aps["input-push-channel"] {
        case nil: inputPushChannel = nil
        case .string(let channel)?: inputPushChannel = channel
        case let other?: throw ActivityPushError("aps.input-push-channel is \(other.jsonText), not a string")
        }
        if event != .end, contentState == nil { throw ActivityPushError("aps has no content-state, which \(event.rawValue) needs") }
        if event == .start {
            guard attributesType != nil else { throw ActivityPushError("aps has no attributes-type, which start needs") }
            guard attributes != nil else { throw ActivityPushError("aps has no attributes, which start needs") }
            guard alert != nil else { throw ActivityPushError("aps has no alert, which start needs") }
        }
    }

    private static func date(_ value: JSONValue, _ key: String) throws(ActivityPushError) -> Date {
        guard let seconds = value.number, seconds.isFinite, seconds >= 0 else {
            throw ActivityPushError("aps.\(key) is \(value.jsonText), not a time in seconds since 1970")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    private static func object(_ value: JSONValue?, _ key: String) throws(ActivityPushError) -> [String: JSONValue]? {
        switch value {
        case nil: return nil
        case .object(let object)?: return object
        case let other?: throw ActivityPushError("aps.\(key) is \(other.jsonText), not an object")
        }
    }
}

/// Why a `liveactivity` push cannot be applied, in one sentence naming the key.
public struct ActivityPushError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
