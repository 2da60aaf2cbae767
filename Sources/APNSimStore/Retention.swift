import APNSimRules
import Foundation
import Synchronization

/// Keeps one table of the record within a count and an age, on the writer that fills it.
///
/// The count is tracked as batches are written, so the check costs nothing per record. Once it passes the limit
/// by a tenth, one `DELETE` drops the oldest rows back down to the limit: a batch of deletes every few thousand
/// inserts, never one per insert. Ages are checked at most once a second.
final class Retention: Sendable {
    /// Deletes rows beyond the newest `keeping` and rows older than `before`; returns how many went.
    typealias Trim = @Sendable (_ keeping: Int?, _ before: Date?) throws -> Int

    private struct State {
        var count: Int
        var dropped = 0
        var lastAgeCheck = Date.distantPast
    }

    private let limit: Int?
    private let maximumAge: TimeInterval?
    private let clock: WallClock
    private let trim: Trim
    private let state: Mutex<State>

    init(limit: Int?, maximumAge: TimeInterval?, clock: WallClock, count: Int, trim: @escaping Trim) {
        self.limit = limit.map { max($0, 0) }
        self.maximumAge = maximumAge
        self.clock = clock
        self.trim = trim
        self.state = Mutex(State(count: count))
    }

    /// How many rows were dropped to keep within the limits, since the start.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Notes `added` rows just written, and trims when the table is past its limits.
    func added(_ added: Int) throws {
        let now = clock.now()
        let (overCount, ageCutoff) = state.withLock { state -> (Bool, Date?) in
            state.count += added
            let overCount = limit.map { state.count > $0 + max($0 / 10, 1) } ?? false
            var cutoff: Date?
            if let maximumAge, now.timeIntervalSince(state.lastAgeCheck) >= 1 {
                state.lastAgeCheck = now
                cutoff = now.addingTimeInterval(-maximumAge)
            }
            return (overCount, cutoff)
        }
        guard overCount || ageCutoff != nil else { return }
        let removed = try trim(overCount ? limit : nil, ageCutoff)
        state.withLock { state in
            state.count = max(state.count - removed, 0)
            state.dropped += removed
        }
    }

    /// The table was emptied (`POST /v1/reset`).
    func emptied() {
        state.withLock { $0.count = 0 }
    }
}
