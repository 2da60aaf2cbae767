import APNSimCore
import Testing

// The time limit bounds a hang (a reader never resumed), not a speed: each test takes microseconds.
@Suite("Event queue: values sent from any thread, read in order by one reader", .timeLimit(.minutes(1)))
struct EventQueueTests {
    @Test("Values sent before and while the reader waits come in the order sent")
    func inOrder() async {
        let queue = EventQueue<Int>()
        queue.send(1)
        queue.send(2)
        #expect(await queue.next() == 1)
        #expect(await queue.next() == 2)
        async let waited = queue.next()
        queue.send(3)
        #expect(await waited == 3)
    }

    @Test("Finished, the reader gets what was queued, then nil; what is sent after is dropped")
    func finished() async {
        let queue = EventQueue<String>()
        queue.send("a")
        queue.finish()
        queue.send("b")
        #expect(await queue.next() == "a")
        #expect(await queue.next() == nil)
        #expect(await queue.next() == nil)
    }

    @Test("A waiting reader is ended by finish; dropping, what was queued goes too")
    func dropping() async {
        let waiting = EventQueue<Int>()
        async let ended = waiting.next()
        waiting.finish()
        #expect(await ended == nil)

        let queue = EventQueue<Int>()
        queue.send(1)
        queue.finish(dropping: true)
        #expect(await queue.next() == nil)
    }

    @Test("A reader whose task is cancelled gets nil, and the queue is over")
    func cancelled() async {
        let queue = EventQueue<Int>()
        let reader = Task { await queue.next() }
        reader.cancel()
        #expect(await reader.value == nil)
        queue.send(1)
        #expect(await queue.next() == nil)
    }
}
