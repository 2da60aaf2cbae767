import Foundation

extension LiveActivity {
    /// Where an activity stands: everything of it a push can change (``apply(_:now:)``, ``end(at:dismissal:)``), with
    /// its ID. The rest (its app, type, attributes, token or channel, start) is fixed when it starts.
    ///
    /// A device answers a broadcast's carried pushes with this instead of the whole activity (docs/device-link.md,
    /// "Carried pushes"): the gateway sent each to an activity it lists, so it has the rest. The whole activity was
    /// half of every such receipt; with this instead, a broadcast to 1,000 devices took 21.5 ms, not 23.5
    /// (`Benchmarks/broadcast.sh 41`, medians).
    public struct Progress: Sendable, Hashable, Codable {
        public var id: String
        public var contentState: [String: JSONValue]
        public var timestamp: Date?
        public var staleDate: Date?
        public var relevanceScore: Double?
        public var endedAt: Date?
        public var dismissalDate: Date?

        public init(_ activity: LiveActivity) {
            id = activity.id
            contentState = activity.contentState
            timestamp = activity.timestamp
            staleDate = activity.staleDate
            relevanceScore = activity.relevanceScore
            endedAt = activity.endedAt
            dismissalDate = activity.dismissalDate
        }
    }

    /// Where it stands now (``Progress``). Setting it changes what a push can change; its ID stays.
    public var progress: Progress {
        get { Progress(self) }
        set {
            contentState = newValue.contentState
            timestamp = newValue.timestamp
            staleDate = newValue.staleDate
            relevanceScore = newValue.relevanceScore
            endedAt = newValue.endedAt
            dismissalDate = newValue.dismissalDate
        }
    }
}
