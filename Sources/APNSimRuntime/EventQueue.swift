import Synchronization

/// Values sent from any thread to one reader that awaits them in order: what an `AsyncStream` with one consumer does,
/// without its price. The standard library's stream is generic code that looks up its element's type metadata at run
/// time on every `yield`, `next` and `finish`: 28,000 instructions of a rich push went to the extension turn's stream,
/// 11,000 to the device jobs' (`Benchmarks/instructions.sh`, the rich path; docs/speed.md). This one is inlined into
/// its users, and specialized.
public final class EventQueue<Element: Sendable>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var elements: [Element] = []
        /// The reader, waiting in ``next()``.
        @usableFromInline var reader: UnsafeContinuation<Element?, Never>?
        @usableFromInline var finished = false

        @inlinable init() {}
    }

    @usableFromInline let state = Mutex(State())

    @inlinable public init() {}

    /// Queues `element` for the reader; after ``finish()`` it is dropped.
    @inlinable
    public func send(_ element: Element) {
        let reader = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            guard !state.finished else { return nil }
            guard let reader = state.reader else {
                state.elements.append(element)
                return nil
            }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: element)
    }

    /// The next element, in the order sent; `nil` once the queue is finished and what it held is read, or at once when
    /// the reader's task is cancelled (what the queue held is dropped then), as an `AsyncStream`'s iterator does.
    @inlinable
    public func next() async -> Element? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (reader: UnsafeContinuation<Element?, Never>) in
                let ready = state.withLock { state -> Element?? in
                    if !state.elements.isEmpty { return .some(state.elements.removeFirst()) }
                    if state.finished { return .some(nil) }
                    state.reader = reader
                    return nil
                }
                if let ready { reader.resume(returning: ready) }
            }
        } onCancel: {
            finish(dropping: true)
        }
    }

    /// Nothing is queued from now on; the reader gets what was queued before, then `nil` (with `dropping`, `nil` at once).
    @inlinable
    public func finish(dropping: Bool = false) {
        let reader = state.withLock { state -> UnsafeContinuation<Element?, Never>? in
            state.finished = true
            if dropping { state.elements.removeAll() }
            guard state.elements.isEmpty, let reader = state.reader else { return nil }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: nil)
    }
}
