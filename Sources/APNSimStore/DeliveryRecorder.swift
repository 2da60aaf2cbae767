import APNSimCore
import Foundation
import Synchronization

/// Takes delivery events from event loops without blocking them and applies them to the store in order,
/// in batches (like ``SendRecorder``). Readers that wait for a delivery (`GET /v1/deliveries?wait=`) are woken
/// after every batch.
public final class DeliveryRecorder: Sendable {
    private let store: Store
    private let buffer = WriteBuffer<DeliveryEvent>()
    /// Readers waiting for the next batch, and how many batches have been applied (so a reader that looked
    /// before a batch landed does not wait for the one after it).
    private let waiting = Mutex<(generation: Int, waiters: [UUID: CheckedContinuation<Void, Never>])>((0, [:]))

    private let retention: Retention

    /// - Parameters:
    ///   - limits: how many deliveries to keep, and for how long (``RecordLimits``).
    ///   - clock: what "now" is for ``RecordLimits/maximumAge``.
    public init(store: Store, limits: RecordLimits = RecordLimits(), clock: WallClock = .system) throws {
        self.store = store
        self.retention = Retention(limit: limits.deliveries, maximumAge: limits.maximumAge, clock: clock,
                                   count: try store.deliveryCounts().total) { keeping, before in
            try store.trimDeliveries(keeping: keeping, before: before)
        }
    }

    /// Deliveries dropped to keep within the limits since the recorder started.
    public var dropped: Int { retention.dropped }

    /// Forgets every delivery record.
    public func deleteAll() throws {
        try flush()
        try store.deleteAllDeliveries()
        retention.emptied()
    }

    /// Queues an event; cheap, callable from any thread.
    public func record(_ event: DeliveryEvent) {
        buffer.append(event)
    }

    /// Held while a batch is taken and applied, so two flushes (the run loop's and a reader's) cannot apply
    /// batches out of order: a receipt must never land before the delivery it updates.
    private let applying = Mutex(())

    /// Applies everything queued so far, then wakes waiting readers.
    public func flush() throws {
        let events = try applying.withLock { _ in
            let events = buffer.take()
            try store.apply(events)
            try retention.added(events.count { if case .accepted = $0 { true } else { false } })
            return events
        }
        guard !events.isEmpty else { return }
        let woken = waiting.withLock { state in
            state.generation += 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// How many batches have been applied so far; pass it to ``nextChange(since:before:)``.
    public var generation: Int { waiting.withLock { $0.generation } }

    /// Returns once a batch has been applied after `generation` was read (at once if one already has been),
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

    /// The deliveries `filter` matches, once there are at least `count` of them (or `deadline` has passed): a
    /// long-poll on the record, with no sleeping (what `GET /v1/deliveries?wait=` and APNSimTesting use).
    public func deliveries(matching filter: DeliveryFilter, count: Int = 0,
                           until deadline: ContinuousClock.Instant = .now) async throws -> [DeliveryRecord] {
        while true {
            try flush()
            let generation = generation
            let found = try store.deliveries(matching: filter)
            if found.count >= count || ContinuousClock.now >= deadline { return found }
            await nextChange(since: generation, before: deadline)
        }
    }

    /// Applies the buffer until ``finish()`` is called.
    public func run() async {
        await buffer.run(gathering: .milliseconds(2)) { try? flush() }
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        buffer.finish()
    }
}
