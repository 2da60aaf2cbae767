@testable import APNSimGateway
import Testing

/// The hand-offs a replica has taken, through the interleavings of its two reads (``HandOffsTaken``).
@Suite("Hand-offs taken")
struct HandOffsTakenTests {
    @Test("A row is taken once: by the read on word of it or by the sweep, never by both, and forgotten once gone")
    func takenOnce() {
        var taken = HandOffsTaken()
        #expect(taken.incremental([1, 2, 3]) == [1, 2, 3])
        #expect(taken.incremental([2, 3, 4]) == [4], "a read that began before the last one moved on takes only what is after it")
        #expect(taken.read == 4)
        // Row 3 carried out and gone; row 0 committed late, after rows 1 to 4 were read.
        let started = taken.startSweep()
        #expect(taken.sweep(present: [0, 1, 2, 4], since: started) == [0])
        #expect(taken.whole([0]) == [0])
        #expect(taken.taken == 4, "rows 0, 1, 2 and 4; 3 forgotten")
        let next = taken.startSweep()
        #expect(taken.sweep(present: [0, 1, 2, 4], since: next) == [], "taken, so not taken again")
    }

    @Test("A row taken on word of it while the sweep was reading which rows are there is not taken again by the next sweep")
    func takenDuringSweep() {
        var taken = HandOffsTaken()
        #expect(taken.incremental([1]) == [1])
        let started = taken.startSweep()
        // The sweep's read of the rows there ran before row 2 was committed; the read on word of row 2 took it meanwhile.
        let present: [Int64] = [1]
        #expect(taken.incremental([2]) == [2])
        #expect(taken.sweep(present: present, since: started) == [])
        // Row 2 is still being carried out (its record not yet committed): the next sweep sees it there, and leaves it.
        let next = taken.startSweep()
        #expect(taken.sweep(present: [1, 2], since: next) == [], "row 2 was taken once already")
        // Once its record is in, it is gone, and forgotten.
        let last = taken.startSweep()
        #expect(taken.sweep(present: [1], since: last) == [])
        #expect(taken.taken == 1)
    }
}
