import APNSimExtensions
import APNSimTestSupport
import Synchronization
import Testing

/// The budgets' deadlines of the extension runs in progress, on one timer: armed for the earliest, armed again only
/// for an earlier one, and each action called once, at its deadline, unless its run ended first.
@Suite("Extension deadlines: one timer for every run's budget", .hangGuard)
struct ExtensionDeadlinesTests {
    /// A timer that fires when the test says, and a clock that reads what the test sets.
    final class ManualTimer: Sendable {
        struct Armed { var at: ContinuousClock.Instant; var action: @Sendable () -> Void; var cancelled = false }
        let armed = Mutex<[Armed]>([])
        let time: Mutex<ContinuousClock.Instant>

        init(at start: ContinuousClock.Instant) { time = Mutex(start) }

        func deadlines() -> ExtensionDeadlines {
            ExtensionDeadlines(now: { self.time.withLock { $0 } }) { at, action in
                let index = self.armed.withLock { armed in
                    armed.append(Armed(at: at, action: action))
                    return armed.count - 1
                }
                return { self.armed.withLock { $0[index].cancelled = true } }
            }
        }

        /// The deadlines of the timers armed and not cancelled.
        var live: [ContinuousClock.Instant] { armed.withLock { $0.filter { !$0.cancelled }.map(\.at) } }

        /// Fires the one live timer at `time`, as the event loop would; a fired timer is spent.
        func fire(at time: ContinuousClock.Instant) {
            self.time.withLock { $0 = time }
            let action = armed.withLock { armed -> (@Sendable () -> Void)? in
                guard let index = armed.firstIndex(where: { !$0.cancelled }) else { return nil }
                armed[index].cancelled = true
                return armed[index].action
            }
            action?()
        }
    }

    @Test("One timer for deadlines in order, again for an earlier one; due actions called in order, ended runs never")
    func oneTimer() {
        let start = ContinuousClock.now
        let timer = ManualTimer(at: start)
        let deadlines = timer.deadlines()
        let called = Mutex<[String]>([])
        func add(_ name: String, in seconds: Int) -> ExtensionDeadlines.Ticket {
            deadlines.add(at: start + .seconds(seconds)) { called.withLock { $0.append(name) } }
        }

        let a = add("a", in: 30)
        let b = add("b", in: 31)
        _ = add("c", in: 32)
        #expect(timer.live == [start + .seconds(30)], "later deadlines arm nothing")
        _ = add("early", in: 10)
        #expect(timer.live == [start + .seconds(10)], "an earlier one re-arms the timer")
        deadlines.remove(b)
        #expect(deadlines.count == 3)

        timer.fire(at: start + .milliseconds(31_500))
        #expect(called.withLock { $0 } == ["early", "a"], "the due ones, in order; b's run ended")
        #expect(timer.live == [start + .seconds(32)], "armed again for the earliest left")

        timer.fire(at: start + .milliseconds(31_900))
        #expect(called.withLock { $0 } == ["early", "a"], "a timer that fires early calls nothing")
        #expect(timer.live == [start + .seconds(32)])

        deadlines.remove(a)
        timer.fire(at: start + .seconds(40))
        #expect(called.withLock { $0 } == ["early", "a", "c"])
        #expect(timer.live.isEmpty && deadlines.count == 0, "nothing left, nothing armed")

        _ = add("d", in: 50)
        #expect(timer.live == [start + .seconds(50)], "the next deadline arms it again")
    }

    @Test("The process's timer calls an action at its deadline on a real event loop")
    func realTimer() async {
        let fired = AsyncStream<Void>.makeStream()
        _ = ExtensionDeadlines.shared.add(at: .now + .milliseconds(1)) { fired.continuation.yield() }
        var iterator = fired.stream.makeAsyncIterator()
        await iterator.next()
    }
}
