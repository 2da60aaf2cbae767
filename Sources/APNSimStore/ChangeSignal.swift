import Foundation
import Synchronization

/// Wakes readers waiting for the record to change: the recorders ``signal()`` after each batch they write, and
/// long-polls (`GET /v1/deliveries?wait=`) and the inbox's event stream (`GET /v1/events`) wait in
/// ``nextChange(since:before:)``. One signal may serve several recorders, so a reader waits on all of them at once.
public final class ChangeSignal: Sendable {
    /// How many batches have been written, and who waits (a reader that looked before a batch landed does not wait
    /// for the one after it).
    private let waiting = Mutex<(generation: Int, waiters: [UUID: CheckedContinuation<Void, Never>])>((0, [:]))

    public init() {}

    /// How many changes there have been; pass it to ``nextChange(since:before:)``.
    public var generation: Int { waiting.withLock { $0.generation } }

    /// A batch was written: wakes every waiting reader.
    public func signal() {
        let woken = waiting.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// A long-poll: what `read` finds once it finds `count` records, or what it finds at `deadline`, read again after
    /// each change (`GET /v1/interactions?wait=`, `GET /v1/connections?wait=`).
    public func poll<Record>(count: Int, until deadline: ContinuousClock.Instant,
                             _ read: () async throws -> [Record]) async throws -> [Record] {
        while true {
            let generation = self.generation  // before the read: a change landing during it wakes the wait at once
            let found = try await read()
            if found.count >= count || ContinuousClock.now >= deadline { return found }
            await nextChange(since: generation, before: deadline)
        }
    }

    /// Returns once there has been a change after `generation` was read (at once if there already has been),
    /// or at `deadline`, whichever comes first.
    public func nextChange(since generation: Int, before deadline: ContinuousClock.Instant) async {
        let id = UUID()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let registered = waiting.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.waiters[id] = continuation
                return true
            }
            guard registered else { return continuation.resume() }
            Task {
                try? await Task.sleep(until: deadline)
                self.waiting.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }
}

/// One kind of change a ``ChangeSignal`` wakes readers for (delivery batches, send batches, device changes, the
/// record emptied): how many there have been, so a reader woken by the signal can tell which kinds changed.
public final class ChangeCounter: Sendable {
    private let value = Atomic(0)
    private let signal: ChangeSignal?

    public init(signalling signal: ChangeSignal?) {
        self.signal = signal
    }

    public var count: Int { value.load(ordering: .relaxed) }

    /// Counts one change, then wakes the signal's readers.
    public func bump() {
        value.add(1, ordering: .relaxed)
        signal?.signal()
    }
}
