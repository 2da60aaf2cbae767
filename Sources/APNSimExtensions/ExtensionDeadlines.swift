import NIOCore
import NIOPosix
import Synchronization

/// The budgets' deadlines of every extension run in progress in the process, on one event-loop timer.
///
/// A timer of its own for each run, scheduled on an event loop and cancelled when the run ended, woke that loop's
/// thread for every rich push: rich pushes went 5 to 7% faster without it (`/proc` times around rich loads of
/// `Benchmarks/e2e.sh`'s kind, docs/speed.md). Here a run's deadline joins a list kept in order, and the one timer is
/// armed for the earliest. A run whose deadline is later than that (every run of one budget started after it) arms
/// nothing, and a run that ends takes its deadline off the list without touching the timer. When the timer fires, the
/// runs due are told, and it is armed again for the earliest deadline left.
public final class ExtensionDeadlines: Sendable {
    /// Arms a timer that calls its action at a deadline (never before returning); returns what cancels it.
    public typealias Schedule = @Sendable (ContinuousClock.Instant, @escaping @Sendable () -> Void) -> (@Sendable () -> Void)

    /// A deadline on the list: what ``remove(_:)`` takes it off by.
    public struct Ticket: Sendable, Hashable {
        let at: ContinuousClock.Instant
        let id: UInt64
    }

    private struct Entry {
        var ticket: Ticket
        var action: @Sendable () -> Void
    }

    private struct State {
        /// In order of deadline, then of joining.
        var waiting: [Entry] = []
        var armed: (at: ContinuousClock.Instant, cancel: @Sendable () -> Void)?
        var nextID: UInt64 = 0
    }

    /// The process's, on an event loop of the process's group.
    public static let shared = ExtensionDeadlines { deadline, action in
        let scheduled = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: TimeAmount(deadline - .now), action)
        return { scheduled.cancel() }
    }

    private let schedule: Schedule
    private let now: @Sendable () -> ContinuousClock.Instant
    private let state = Mutex(State())

    /// - Parameters:
    ///   - now: the time the timer's action reads to find the deadlines due.
    ///   - schedule: what arms the timer.
    public init(now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, schedule: @escaping Schedule) {
        self.now = now
        self.schedule = schedule
    }

    /// Calls `action` at `deadline` unless it is removed first.
    public func add(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Ticket {
        state.withLock { state in
            let ticket = Ticket(at: deadline, id: state.nextID)
            state.nextID += 1
            // Deadlines mostly come in order (one budget, runs started one after another): searched from the end.
            var index = state.waiting.endIndex
            while index > 0, state.waiting[index - 1].ticket.at > deadline { index -= 1 }
            state.waiting.insert(Entry(ticket: ticket, action: action), at: index)
            if state.armed.map({ deadline < $0.at }) ?? true { arm(for: deadline, in: &state) }
            return ticket
        }
    }

    /// Takes `ticket`'s deadline off the list; its action is not called. Nothing happens when it was called already.
    public func remove(_ ticket: Ticket) {
        state.withLock { state in
            // Runs mostly end in the order they started: searched from the start.
            if let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) {
                state.waiting.remove(at: index)
            }
        }
    }

    /// How many deadlines are on the list.
    public var count: Int { state.withLock { $0.waiting.count } }

    private func arm(for deadline: ContinuousClock.Instant, in state: inout State) {
        state.armed?.cancel()
        state.armed = (deadline, schedule(deadline) { [weak self] in self?.fired() })
    }

    /// The timer's action: the actions due, in order of deadline, each called once; then the timer armed for the
    /// earliest deadline left.
    private func fired() {
        let now = now()
        let due = state.withLock { state -> [Entry] in
            let end = state.waiting.firstIndex { $0.ticket.at > now } ?? state.waiting.endIndex
            let due = Array(state.waiting[..<end])
            state.waiting.removeFirst(end)
            state.armed = nil
            if let first = state.waiting.first { arm(for: first.ticket.at, in: &state) }
            return due
        }
        for entry in due { entry.action() }
    }
}
