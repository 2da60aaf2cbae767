import Synchronization

/// Whether a store on a server can take writes now, and if not, why: what a gateway answers `503 ServiceUnavailable`
/// with, and `/readyz` says, while PostgreSQL is out of reach (docs/cluster.md, "When PostgreSQL stops"). A store in
/// this process (SQLite) has none: it is there while the gateway is.
public final class StoreHealth: Sendable {
    private let state = Mutex<(problem: String?, changed: (@Sendable () -> Void)?)>((nil, nil))

    public init() {}

    /// A sentence saying why the store cannot take writes, or `nil` when it can.
    public var problem: String? { state.withLock { $0.problem } }

    /// Calls `changed` each time the store goes away or comes back (the gateway's event stream says so).
    public func onChange(_ changed: @escaping @Sendable () -> Void) {
        state.withLock { $0.changed = changed }
    }

    func set(_ problem: String?) {
        let changed = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state.problem = problem }
            return (state.problem == nil) != (problem == nil) ? state.changed : nil
        }
        changed?()
    }
}
