import APNSimRules
import Foundation

/// Takes connection records from the gateway's event loops and writes them to the store, as ``SendRecorder`` does
/// sends: ``record(_:)`` queues, ``run()`` writes what is queued, and the table is kept within
/// ``RecordLimits/connections`` (a client retrying a refused handshake in a loop makes one a try).
public final class ConnectionRecorder: Sendable {
    private let store: any Store
    private let buffer = WriteBuffer<ConnectionRecord>()
    private let writes = SerialWrites()
    private let retention: Retention
    private let changes: ChangeSignal
    /// Batches written, and batches other replicas wrote (``ReplicaLinks``); each signals the ``ChangeSignal``.
    public let batches: ChangeCounter

    public init(store: any Store, limits: RecordLimits = RecordLimits(), clock: WallClock = .system, changes: ChangeSignal = ChangeSignal()) {
        self.store = store
        self.changes = changes
        self.batches = ChangeCounter(signalling: changes)
        self.retention = Retention(limit: limits.connections, maximumAge: limits.maximumAge, clock: clock, shared: store.isShared,
                                   count: { try await store.connectionCount() }) { keeping, before in
            try await store.trimConnections(keeping: keeping, before: before)
        }
    }

    /// Queues a record; cheap, callable from any thread.
    public func record(_ connection: ConnectionRecord) {
        buffer.append(connection)
    }

    /// Writes everything queued so far: call before reading the store.
    public func flush() async throws {
        let added = try await buffer.write(on: writes, retention: retention) { try await store.insertConnections($0) }
        if added > 0 { batches.bump() }
    }

    /// The records `filter` matches once there are `count` of them, or what there is at `deadline`: a long-poll woken
    /// by each batch written (`GET /v1/connections?wait=`, APNSimTesting's `connections`).
    public func connections(matching filter: ConnectionFilter, count: Int = 0, until deadline: ContinuousClock.Instant = .now) async throws
        -> [ConnectionRecord] {
        try await changes.poll(count: count, until: deadline) {
            try await flush()
            return try await store.connections(matching: filter)
        }
    }

    /// Forgets every connection record.
    public func deleteAll() async throws {
        try await flush()
        try await writes.run {
            try await store.deleteAllConnections()
            retention.emptied()
        }
    }

    /// Writes what is queued until ``finish()`` is called.
    public func run() async {
        await buffer.runFlushing(flush)
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        buffer.finish()
    }
}
