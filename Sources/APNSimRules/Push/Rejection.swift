import Foundation

/// A refused request: Apple's reason plus what a human needs to fix it.
public struct Rejection: Hashable, Sendable, Error, CustomStringConvertible {
    public var reason: RejectionReason
    /// A sentence for people, never sent on the wire (the wire carries only `reason`).
    public var explanation: String
    /// For 410 answers: when the token stopped being valid (sent as `timestamp`, milliseconds).
    public var invalidSince: Date?

    public init(_ reason: RejectionReason, _ explanation: String, invalidSince: Date? = nil) {
        self.reason = reason
        self.explanation = explanation
        self.invalidSince = invalidSince
    }

    public var description: String { "\(reason): \(explanation)" }

    /// The JSON error body Apple sends: `{"reason":"…"}`, plus `"timestamp"` in milliseconds for 410.
    public var responseBody: String {
        if reason.status == 410 {
            let millis = Int64(saturating: ((invalidSince ?? Date(timeIntervalSince1970: 0)).timeIntervalSince1970 * 1000).rounded())
            return #"{"reason":"\#(reason.rawValue)","timestamp":\#(millis)}"#
        }
        return #"{"reason":"\#(reason.rawValue)"}"#
    }
}
