import Synchronization

/// What the recorders share: a buffer event loops append to without blocking, and a wake-up stream that lets
/// one writer task drain it in batches whenever it holds something.
final class WriteBuffer<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init() {
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues an item; cheap, callable from any thread. The item is moved in, not copied: a send's record holds
    /// fifteen strings, and each copy retains and releases every one of them, an atomic operation each.
    func append(_ item: consuming Element) {
        var item = Optional(item)
        adding { $0.append(item.take()!) }
    }

    /// Queues items in order under one lock.
    func append(contentsOf more: [Element]) {
        guard !more.isEmpty else { return }
        adding { $0.append(contentsOf: more) }
    }

    /// Adds under the lock with `add`, and wakes the writer when the buffer held nothing before.
    private func adding(_ add: (inout [Element]) -> Void) {
        let wasEmpty = items.withLock { items in
            defer { add(&items) }
            return items.isEmpty
        }
        if wasEmpty { wake.yield() }
    }

    /// Puts `items` back in front of what was queued since they were taken: a write that failed (the store's server out
    /// of reach) is tried again with the next, rather than lost.
    func putBack(_ taken: [Element]) {
        guard !taken.isEmpty else { return }
        items.withLock { $0.insert(contentsOf: taken, at: 0) }
        wake.yield()
    }

    /// Everything queued so far, in order; the buffer is empty afterwards.
    func take() -> [Element] {
        items.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }

    /// Calls `drain` whenever items arrive, until ``finish()``; then once more for the last of them.
    ///
    /// After each drain it lets `gathering` pass before the next, so a trickle of items (one request per round
    /// trip, as on a connection held to one stream) is written in batches too: a wake-up and a transaction per
    /// item cost more than answering the request did. Readers that need everything call their recorder's
    /// `flush()` first, so the pause delays no answer.
    func run(gathering: Duration = .zero, _ drain: () async -> Void) async {
        for await _ in wakeups {
            await drain()
            if gathering > .zero { try? await Task.sleep(for: gathering) }
        }
        await drain()
    }

    /// ``run(gathering:_:)`` with a recorder's `flush`, every 2 ms at most: a flush that fails (the store out of reach)
    /// has put its batch back, and the next is tried a quarter of a second later.
    func runFlushing(_ flush: () async throws -> Void) async {
        await run(gathering: .milliseconds(2)) {
            do {
                try await flush()
            } catch {
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// Writes what is queued as one batch with `insert`, one write at a time on `writes`, then lets `retention` drop
    /// what the table holds past its limits; returns how many were written. A batch `insert` fails is put back.
    func write(on writes: SerialWrites, retention: Retention, _ insert: ([Element]) async throws -> Void) async throws -> Int {
        try await writes.run {
            let batch = take()
            if !batch.isEmpty {
                do {
                    try await insert(batch)
                } catch {
                    putBack(batch)  // tried again with the next flush: a store out of reach loses nothing
                    throw error
                }
            }
            try await retention.added(batch.count)  // with none added, it still drops what grew too old
            return batch.count
        }
    }

    func finish() {
        wake.finish()
    }
}
