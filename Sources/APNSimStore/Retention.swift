import APNSimRules
import Foundation
import Synchronization

/// Keeps one table of the record within a count and an age, on the writer that fills it.
///
/// The count is read from the store before the first batch, then tracked as batches are written, so the check costs
/// nothing per record. Once it passes the limit
/// by a tenth, one `DELETE` drops the oldest rows back down to the limit: a batch of deletes every few thousand
/// inserts, never one per insert. Ages are checked at most once a second. A table other gateways write too (a store
/// replicas share) is counted again every tenth of the limit written here: the rows the others added count as well,
/// and whichever replica finds the table past the limit trims it for all.
final class Retention: Sendable {
    /// Deletes rows beyond the newest `keeping` and rows older than `before`; returns how many went.
    typealias Trim = @Sendable (_ keeping: Int?, _ before: Date?) async throws -> Int
    /// How many rows the table holds.
    typealias Count = @Sendable () async throws -> Int

    private struct State {
        /// `nil` until the first batch reads it from the store.
        var count: Int?
        /// Rows written here since the count was read, for a shared table.
        var sinceCounted = 0
        var dropped = 0
        var lastAgeCheck = Date.distantPast
    }

    private let limit: Int?
    private let maximumAge: TimeInterval?
    private let clock: WallClock
    private let trim: Trim
    private let count: Count
    /// Whether others write the table too (``Store/isShared``).
    private let shared: Bool
    private let state = Mutex(State())

    init(limit: Int?, maximumAge: TimeInterval?, clock: WallClock, shared: Bool = false, count: @escaping Count, trim: @escaping Trim) {
        self.shared = shared
        self.limit = limit.map { max($0, 0) }
        self.maximumAge = maximumAge
        self.clock = clock
        self.count = count
        self.trim = trim
    }

    /// How many rows were dropped to keep within the limits, since the start.
    var dropped: Int { state.withLock { $0.dropped } }

    /// Notes `added` rows just written, and trims when the table is past its limits. Called by the table's one writer,
    /// one batch at a time.
    func added(_ added: Int) async throws {
        let recount = state.withLock { state in
            state.count == nil || shared && state.sinceCounted + added >= max((limit ?? 0) / 10, 1)
        }
        if recount {
            let counted = try await count()  // after the batch was written: it is in the count already
            state.withLock { state in
                state.count = counted - added
                state.sinceCounted = 0
            }
        } else {
            state.withLock { $0.sinceCounted += added }
        }
        let now = clock.now()
        let (overCount, ageCutoff) = state.withLock { state -> (Bool, Date?) in
            let total = (state.count ?? 0) + added
            state.count = total
            let overCount = limit.map { total > $0 + max($0 / 10, 1) } ?? false
            var cutoff: Date?
            if let maximumAge, now.timeIntervalSince(state.lastAgeCheck) >= 1 {
                state.lastAgeCheck = now
                cutoff = now.addingTimeInterval(-maximumAge)
            }
            return (overCount, cutoff)
        }
        guard overCount || ageCutoff != nil else { return }
        let removed = try await trim(overCount ? limit : nil, ageCutoff)
        state.withLock { state in
            state.count = max((state.count ?? 0) - removed, 0)
            state.dropped += removed
        }
    }

    /// The table was emptied (`POST /v1/reset`).
    func emptied() {
        state.withLock { $0.count = 0 }
    }
}
