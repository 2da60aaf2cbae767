import APNSimRules
import Foundation
import Synchronization

/// Takes delivery events from event loops without blocking them and applies them to the store in order,
/// in batches (like ``SendRecorder``). Readers that wait for a delivery (`GET /v1/deliveries?wait=`) are woken
/// after every batch.
public final class DeliveryRecorder: Sendable {
    private let store: any Store
    private let buffer = WriteBuffer<DeliveryEvent>()
    /// Signalled after every batch; readers wait on it.
    public let changes: ChangeSignal
    /// Batches applied, and times the record was emptied (`POST /v1/reset`, so a reader holding deliveries knows to
    /// drop them).
    public let batches: ChangeCounter
    public let erasures: ChangeCounter

    private let retention: Retention
    private let observe: (@Sendable (AppliedDeliveries) -> Void)?

    /// - Parameters:
    ///   - limits: how many deliveries to keep, and for how long (``RecordLimits``).
    ///   - clock: what "now" is for ``RecordLimits/maximumAge``.
    ///   - changes: what to signal after each batch (one signal may serve the send recorder too).
    ///   - recount: count the table again every tenth of the limit written here, as for a table other gateways write
    ///     too; `nil`: when the store is shared (``Store/isShared``).
    ///   - observe: called with each batch of events as it is applied, in order (the gateway's metrics and traces).
    public init(store: any Store, limits: RecordLimits = RecordLimits(), clock: WallClock = .system,
                changes: ChangeSignal = ChangeSignal(), recount: Bool? = nil, observe: (@Sendable (AppliedDeliveries) -> Void)? = nil) {
        self.store = store
        self.observe = observe
        self.changes = changes
        self.batches = ChangeCounter(signalling: changes)
        self.erasures = ChangeCounter(signalling: changes)
        self.retention = Retention(limit: limits.deliveries, maximumAge: limits.maximumAge, clock: clock, shared: recount ?? store.isShared,
                                   count: { try await store.deliveryCounts().total }) { keeping, before in
            try await store.trimDeliveries(keeping: keeping, before: before)
        }
    }

    /// Deliveries dropped to keep within the limits since the recorder started.
    public var dropped: Int { retention.dropped }

    /// Forgets every delivery record.
    public func deleteAll() async throws {
        try await flush()
        try await applying.run {
            try await store.deleteAllDeliveries()
            retention.emptied()
        }
        erasures.bump()
    }

    /// Queues an event; cheap, callable from any thread. In memory, the events kept only so that a restarted gateway
    /// finds its registrations and held pushes again (``Store/deviceState()``) are not queued: nothing restarts from
    /// memory, and a held push written and deleted again was two of the four writes of every delivered push.
    public func record(_ event: DeliveryEvent) {
        record(contentsOf: [event])
    }

    /// Queues events in order, under one lock (a broadcast's share is a few hundred).
    public func record(contentsOf events: [DeliveryEvent]) {
        let kept = store.isDurable || !events.contains(where: \.isRestartState) ? events : events.filter { !$0.isRestartState }
        buffer.append(contentsOf: kept)
    }

    /// Events applied so far that can add a match to a filter (a new delivery, a receipt): a reader waiting for more
    /// matches need not count again before enough of them have been applied.
    private let matchingEvents = Atomic<Int>(0)

    /// Taken while a batch is taken and applied, so two flushes (the run loop's and a reader's) cannot apply
    /// batches out of order: a receipt must never land before the delivery it updates.
    private let applying = SerialWrites()

    /// Applies everything queued so far, then wakes waiting readers.
    public func flush() async throws {
        let events = try await applying.run {
            let events = buffer.take()
            let latencies: [Double]
            do {
                latencies = events.isEmpty ? [] : try await store.apply(events)
            } catch {
                buffer.putBack(events)  // tried again with the next flush: a store out of reach loses nothing
                throw error
            }
            if !events.isEmpty { observe?(AppliedDeliveries(events: events, displayLatencies: latencies)) }
            let accepted = events.count { if case .accepted = $0 { true } else { false } }
            let outcomes = events.count { switch $0 { case .receipt, .forgotten: true; default: false } }
            matchingEvents.add(accepted + outcomes, ordering: .releasing)
            try await retention.added(accepted)
            return events
        }
        guard !events.isEmpty else { return }
        batches.bump()
    }

    /// The deliveries `filter` matches, once there are at least `count` of them (or `deadline` has passed): a
    /// long-poll on the record, with no sleeping (what `GET /v1/deliveries?wait=` and APNSimTesting use).
    public func deliveries(matching filter: DeliveryFilter, count: Int = 0,
                           until deadline: ContinuousClock.Instant = .now) async throws -> [DeliveryRecord] {
        var counted: (matches: Int, events: Int)?
        while true {
            try await flush()
            let generation = changes.generation
            let events = matchingEvents.load(ordering: .acquiring)
            // Each event applied since the last count adds one match at most: no count before that many could be enough.
            // Not so on a store other replicas write to, whose events this recorder never sees.
            let couldBeEnough = store.isShared || (counted.map { $0.matches + events - $0.events >= count } ?? true)
            // Counted first: a wait for a thousand deliveries reads them once, not after every batch of receipts.
            var read = count <= 1 || ContinuousClock.now >= deadline
            if !read, couldBeEnough { read = try await enough(filter, count: count, counted: &counted, events: events) }
            if read {
                let found = try await store.deliveries(matching: filter)
                if found.count >= count || ContinuousClock.now >= deadline { return found }
            }
            await changes.nextChange(since: generation, before: deadline)
        }
    }

    /// Whether `filter` matches `count` deliveries now, the count kept with the events applied before it.
    private func enough(_ filter: DeliveryFilter, count: Int, counted: inout (matches: Int, events: Int)?, events: Int) async throws -> Bool {
        let matches = min(try await store.deliveryCount(matching: filter), filter.limit)
        counted = (matches, events)
        return matches >= count
    }

    /// Applies the buffer until ``finish()`` is called.
    public func run() async {
        await buffer.runFlushing(flush)
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        buffer.finish()
    }
}

/// A batch of delivery events as the record applied them: what ``DeliveryRecorder``'s observer gets.
public struct AppliedDeliveries: Sendable {
    public var events: [DeliveryEvent]
    /// For each receipt in the batch that says a push was displayed, the seconds from the push's acceptance to the
    /// receipt, by the record's own times (`apnsim_push_display_latency_seconds`): not the time between the batches
    /// that brought the two, which the recorder's gathering sets. None for a push whose record went past a limit.
    public var displayLatencies: [Double]

    public init(events: [DeliveryEvent], displayLatencies: [Double] = []) {
        self.events = events
        self.displayLatencies = displayLatencies
    }
}
