import APNSimRules
import Foundation
import Synchronization

/// Takes send records from the gateway's event loops without blocking them, and writes them to the store in
/// batches: ``record(_:)`` appends to a buffer; ``run()`` drains it whenever there is something to drain.
public final class SendRecorder: Sendable {
    private let store: any Store
    private let buffer = WriteBuffer<SendRecord>()
    private let writes = SerialWrites()
    private let retention: Retention
    private let observe: (@Sendable ([SendRecord]) -> Void)?
    /// Batches written; each signals the recorder's ``ChangeSignal``.
    public let batches: ChangeCounter

    /// - Parameters:
    ///   - limits: how many sends to keep, and for how long (``RecordLimits``).
    ///   - clock: what "now" is for ``RecordLimits/maximumAge``.
    ///   - changes: what to signal after each batch (one signal may serve the delivery recorder too).
    ///   - recount: count the table again every tenth of the limit written here, as for a table other gateways write
    ///     too; `nil`: when the store is shared (``Store/isShared``).
    ///   - observe: called with each batch as it is written (the gateway's metrics count them there, off the
    ///     provider's path).
    public init(store: any Store, limits: RecordLimits = RecordLimits(), clock: WallClock = .system,
                changes: ChangeSignal = ChangeSignal(), recount: Bool? = nil, observe: (@Sendable ([SendRecord]) -> Void)? = nil) {
        self.store = store
        self.observe = observe
        self.batches = ChangeCounter(signalling: changes)
        self.retention = Retention(limit: limits.sends, maximumAge: limits.maximumAge, clock: clock, shared: recount ?? store.isShared,
                                   count: { try await store.sendCount() }) { keeping, before in
            try await store.trimSends(keeping: keeping, before: before)
        }
    }

    /// Sends dropped to keep within the limits since the recorder started.
    public var dropped: Int { retention.dropped }

    /// Forgets every recorded send.
    public func deleteAll() async throws {
        try await flush()
        try await writes.run {
            try await store.deleteAllSends()
            retention.emptied()
        }
    }

    /// Queues a record; cheap, callable from any thread.
    public func record(_ send: consuming SendRecord) {
        buffer.append(send)
    }

    /// Writes everything queued so far. Call before reading the store so reads see every answered request.
    public func flush() async throws {
        let added = try await buffer.write(on: writes, retention: retention) { batch in
            try await store.insertSends(batch)
            observe?(batch)
        }
        if added > 0 { batches.bump() }
    }

    /// Drains the buffer until ``finish()`` is called.
    public func run() async {
        await buffer.runFlushing(flush)
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        buffer.finish()
    }
}
