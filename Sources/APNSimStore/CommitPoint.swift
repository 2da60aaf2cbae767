/// Tells the gateway when what it has recorded is safely in the store file, so it can answer 200 only for pushes
/// that a crash can no longer lose.
///
/// ``afterCommit(_:)`` queues a callback; one writer task (``run()``) takes every queued callback, flushes both
/// recorders (so everything recorded before the callbacks were queued is committed, whoever's transaction it
/// rode in), then calls them. Many connections' requests share one commit.
public final class CommitPoint: Sendable {
    public typealias Callback = @Sendable (Result<Void, any Error>) -> Void

    private let sends: SendRecorder
    private let deliveries: DeliveryRecorder
    private let waiting = WriteBuffer<Callback>()

    public init(sends: SendRecorder, deliveries: DeliveryRecorder) {
        self.sends = sends
        self.deliveries = deliveries
    }

    /// Calls `done`, on the writer task, once every send and delivery event recorded before this call is committed.
    public func afterCommit(_ done: @escaping Callback) {
        waiting.append(done)
    }

    /// Commits and calls back until ``finish()``; then once more for the last callbacks.
    public func run() async {
        await waiting.run {
            let callbacks = waiting.take()
            guard !callbacks.isEmpty else { return }
            let result: Result<Void, any Error>
            do {
                try await sends.flush()
                try await deliveries.flush()
                result = .success(())
            } catch {
                result = .failure(error)
            }
            for callback in callbacks { callback(result) }
        }
    }

    /// Ends ``run()`` after a last round.
    public func finish() {
        waiting.finish()
    }
}
