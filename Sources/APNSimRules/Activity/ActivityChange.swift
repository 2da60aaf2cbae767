/// What one `liveactivity` push did to a Live Activity, as its delivery record keeps it: which activity, which event,
/// what became of it and why, and the content state before and after.
public struct ActivityChange: Sendable, Hashable, Codable {
    public enum Result: String, Sendable, Hashable, Codable {
        /// A push-to-start push started it.
        case started
        case applied
        case ended
        /// Not applied: older than the last applied, or after the end (`reason` says which).
        case ignored
        /// Not applied: a priority-10 update past the app's budget (``ActivityBudget``).
        case throttled
        /// Not applied: a payload ActivityKit cannot read, or a state the app's type would not decode.
        case refused
    }

    /// The activity's ID; absent when a push-to-start push started nothing.
    public var id: String?
    /// The push's `event`, when it could be read.
    public var event: ActivityPush.Event?
    public var result: Result
    /// Why, in a sentence, for `ignored`, `throttled` and `refused`.
    public var reason: String?
    public var before: [String: JSONValue]?
    public var after: [String: JSONValue]?
    /// The broadcast channel the push came through, for a broadcast.
    public var channel: String?

    public init(id: String?, event: ActivityPush.Event?, result: Result, reason: String? = nil,
                before: [String: JSONValue]? = nil, after: [String: JSONValue]? = nil, channel: String? = nil) {
        self.channel = channel
        self.id = id
        self.event = event
        self.result = result
        self.reason = reason
        self.before = before
        self.after = after
    }
}
