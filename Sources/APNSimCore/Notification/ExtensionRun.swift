/// What a notification service extension did with one push, as the delivery record shows it.
public struct ExtensionRun: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The extension called its content handler in time.
        case completed
        /// The budget ran out; iOS showed what the expiry callback gave, or the original.
        case expired
        case crashed
        /// iOS stopped it (memory budget).
        case killed
        /// iOS did not start it; `diagnostic` says why.
        case notLaunched
    }

    public var ran: Bool
    public var kind: ExtensionKind?
    public var outcome: Outcome
    /// Why, in a sentence.
    public var diagnostic: String
    public var durationMs: Int
    /// Things the extension did that iOS does not allow, such as calling its content handler twice.
    public var violations: [String]

    public init(ran: Bool, kind: ExtensionKind?, outcome: Outcome, diagnostic: String, durationMs: Int = 0,
                violations: [String] = []) {
        self.ran = ran
        self.kind = kind
        self.outcome = outcome
        self.diagnostic = diagnostic
        self.durationMs = durationMs
        self.violations = violations
    }
}
