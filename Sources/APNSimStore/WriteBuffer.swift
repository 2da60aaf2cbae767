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

    /// Queues an item; cheap, callable from any thread.
    func append(_ item: Element) {
        let wasEmpty = items.withLock { items in
            items.append(item)
            return items.count == 1
        }
        if wasEmpty { wake.yield() }
    }

    /// Everything queued so far, in order; the buffer is empty afterwards.
    func take() -> [Element] {
        items.withLock { items in
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }
    }

    /// Calls `drain` whenever items arrive, until ``finish()``; then once more for the last of them.
    func run(_ drain: () -> Void) async {
        for await _ in wakeups { drain() }
        drain()
    }

    func finish() {
        wake.finish()
    }
}
