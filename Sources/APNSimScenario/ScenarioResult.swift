/// What happened when a scenario ran: each step with what was expected and what happened.
public struct ScenarioResult: Sendable {
    public var path: String
    public var name: String
    public var steps: [StepResult]
    /// Why the scenario could not run at all (its file, or its world not starting), if it could not.
    public var error: String?
    public var duration: Duration

    public var passed: Bool { error == nil && steps.allSatisfy { $0.failures.isEmpty } }

    /// The failures, each with its step, as one text.
    public var failureText: String {
        if let error { return error }
        return steps.filter { !$0.failures.isEmpty }.map { step in
            "step \(step.number) (line \(step.line)) \(step.title):\n" + step.failures.map { "  \($0)" }.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}

/// One step's outcome.
public struct StepResult: Sendable {
    public var number: Int
    public var line: Int
    /// What the step did, as the report names it (`send to iphone-dev com.example.app`).
    public var title: String
    /// What happened, in short (`200, displayed, braze completed`).
    public var happened: String
    /// Each expectation that did not hold, as a sentence saying what was expected and what happened.
    public var failures: [String]
    /// Not run, because an earlier step failed.
    public var skipped: Bool
    public var duration: Duration
}
