/// What the app's own `UNUserNotificationCenterDelegate` did (docs/interactions.md, "The app's own delegate"): with a
/// response, in the interaction record; with a notification to present in the foreground, in the delivery's detail.
public struct DelegateRun: Sendable, Hashable, Codable {
    /// The delegate's class.
    public var `class`: String
    /// Whether it called the completion handler (of `didReceive`, or of `willPresent`). iOS logs a response whose
    /// handler was released uncalled; apnsim records it here, with ``diagnostic`` saying which.
    public var completed: Bool
    /// The URLs it opened (`UIApplication.open`), in order.
    public var opened: [String]
    /// What it printed and logged, line by line.
    public var log: [String]
    /// The options `willPresent` handed back (`banner`, `list`, `sound`, `badge`); absent for a response.
    public var presentation: [String]?
    public var durationMs: Int
    /// What happened, in a sentence.
    public var diagnostic: String

    public init(class name: String, completed: Bool, opened: [String] = [], log: [String] = [], presentation: [String]? = nil,
                durationMs: Int, diagnostic: String) {
        self.class = name
        self.completed = completed
        self.opened = opened
        self.log = log
        self.presentation = presentation
        self.durationMs = durationMs
        self.diagnostic = diagnostic
    }
}
