import Foundation
import Synchronization

/// Takes send records from the gateway's event loops without blocking them, and writes them to the store in
/// batches: ``record(_:)`` appends to a buffer; ``run()`` drains it whenever there is something to drain.
public final class SendRecorder: Sendable {
    private let store: Store
    private let buffer = Mutex<[SendRecord]>([])
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    public init(store: Store) {
        self.store = store
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a record; cheap, callable from any thread.
    public func record(_ send: SendRecord) {
        let wasEmpty = buffer.withLock { records in
            records.append(send)
            return records.count == 1
        }
        if wasEmpty { wake.yield() }
    }

    /// Writes everything queued so far. Call before reading the store so reads see every answered request.
    public func flush() throws {
        try store.insertSends { buffer.withLock { records in
            defer { records.removeAll(keepingCapacity: true) }
            return records
        } }
    }

    /// Drains the buffer until the task is cancelled or ``finish()`` is called.
    public func run() async {
        for await _ in wakeups {
            try? flush()
        }
        try? flush()
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        wake.finish()
    }
}
