import Foundation
import Synchronization

/// Takes send records from the gateway's event loops without blocking them, and writes them to the store in
/// batches: ``record(_:)`` appends to a buffer; ``run()`` drains it whenever there is something to drain.
public final class SendRecorder: Sendable {
    private let store: Store
    private let buffer = WriteBuffer<SendRecord>()

    public init(store: Store) {
        self.store = store
    }

    /// Queues a record; cheap, callable from any thread.
    public func record(_ send: SendRecord) {
        buffer.append(send)
    }

    /// Writes everything queued so far. Call before reading the store so reads see every answered request.
    public func flush() throws {
        try store.insertSends { buffer.take() }
    }

    /// Drains the buffer until ``finish()`` is called.
    public func run() async {
        await buffer.run(gathering: .milliseconds(2)) { try? flush() }
    }

    /// Ends ``run()`` after a last flush.
    public func finish() {
        buffer.finish()
    }
}
