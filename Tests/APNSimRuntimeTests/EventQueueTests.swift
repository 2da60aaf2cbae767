import APNSimRuntime
import APNSimTestSupport
import Testing

@Suite("Event queue: values sent from any thread, read in order by one reader", .hangGuard)
struct EventQueueTests {
    /// The queue's next value; a reader never resumed fails the test (the hang guard ends the wait) instead of hanging it.
    private func next<T: Sendable>(_ queue: EventQueue<T>) async throws -> T? {
        try #require(try await withHangGuard { await queue.next() }, "the reader was never resumed")
    }

    @Test("Values sent before and while the reader waits come in the order sent")
    func inOrder() async throws {
        let queue = EventQueue<Int>()
        queue.send(1)
        queue.send(2)
        #expect(try await next(queue) == 1)
        #expect(try await next(queue) == 2)
        async let waited = next(queue)
        queue.send(3)
        #expect(try await waited == 3)
    }

    @Test("Finished, the reader gets what was queued, then nil; what is sent after is dropped")
    func finished() async throws {
        let queue = EventQueue<String>()
        queue.send("a")
        queue.finish()
        queue.send("b")
        #expect(try await next(queue) == "a")
        #expect(try await next(queue) == nil)
        #expect(try await next(queue) == nil)
    }

    @Test("A waiting reader is ended by finish; dropping, what was queued goes too")
    func dropping() async throws {
        let waiting = EventQueue<Int>()
        async let ended = next(waiting)
        waiting.finish()
        #expect(try await ended == nil)

        let queue = EventQueue<Int>()
        queue.send(1)
        queue.finish(dropping: true)
        #expect(try await next(queue) == nil)
    }

    @Test("A reader whose task is cancelled gets nil, and the queue is over")
    func cancelled() async throws {
        let queue = EventQueue<Int>()
        let reader = Task { try await next(queue) }
        reader.cancel()
        #expect(try await reader.value == nil)
        queue.send(1)
        #expect(try await next(queue) == nil)
    }
}
