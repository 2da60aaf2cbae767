import Synchronization

/// Runs a recorder's writes one at a time, in the order they asked: a reader's flush and the writer task's may meet,
/// and the batch one of them took first must be in the store first (a receipt must never land before the delivery it
/// updates). An uncontended write takes the turn under a lock and does not suspend.
final class SerialWrites: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `write` once every write that asked before it has finished.
    func run<Result>(_ write: () async throws -> Result) async throws -> Result {
        await take()
        defer { hand() }
        return try await write()
    }

    private func take() async {
        let free = state.withLock { state in
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        guard !free else { return }
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(turn)
                return false
            }
            if now { turn.resume() }
        }
    }

    /// Gives the turn to the next waiting write, or frees it.
    private func hand() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
