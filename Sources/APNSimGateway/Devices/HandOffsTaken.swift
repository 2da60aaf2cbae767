/// Which of the pushes handed to this replica it has taken to carry out, as ``ReplicaLinks`` reads them from the store:
/// a value, so the interleavings of its reads can be tested as plain calls (`HandOffsTakenTests`).
///
/// A hand-off stays in the store until the batch recording what it became commits; a row taken is not taken again
/// meanwhile. Two reads take rows: on word of a hand-off, the rows after the last read (``incremental(_:)``); every
/// second, the rows up to it still in the store that are not taken (``sweep(present:)``: one committed after a later
/// row was read, or taken over from a replica that is gone). The sweep forgets the rows gone from the store, but only
/// those taken before it read which rows are there (``startSweep()``): a row taken by a read on word of it while the
/// sweep's read was under way is absent from that read only because it was committed after it. Forgotten then, it was
/// taken again by the next sweep while its first delivery was still being recorded, and its device sent it twice
/// (533 displayed receipts too many for a million pushes, `Benchmarks/cluster_scale.sh`).
struct HandOffsTaken: Sendable {
    /// The rows taken and not yet seen gone, each with the sweep it was taken during.
    private var rows: [Int64: Int] = [:]
    /// The last row read.
    private(set) var read: Int64 = 0
    /// Counts the sweeps started.
    private var sweeps = 0

    var taken: Int { rows.count }

    /// A sweep is about to read which rows are in the store: returns what ``sweep(present:since:)`` needs.
    mutating func startSweep() -> Int {
        sweeps += 1
        return sweeps
    }

    /// The rows the store still has (`present`, read after ``startSweep()`` returned `started`): those taken before
    /// then and gone are forgotten; the rows up to the last read that are there and not taken are returned, for
    /// ``whole(_:)`` to take once read.
    mutating func sweep(present: [Int64], since started: Int) -> [Int64] {
        let there = Set(present)
        rows = rows.filter { there.contains($0.key) || $0.value >= started }
        return present.filter { $0 <= read && rows[$0] == nil }
    }

    /// Of `found` (rows up to the last read, as the sweep asked for them), the rows not taken: taken now.
    mutating func whole(_ found: [Int64]) -> [Int64] {
        take(found.filter { $0 <= read })
    }

    /// Of `found` (rows after the last read when the read began), those after the last read now: taken now, and the
    /// last row read moves on.
    mutating func incremental(_ found: [Int64]) -> [Int64] {
        take(found.filter { $0 > read })
    }

    private mutating func take(_ found: [Int64]) -> [Int64] {
        let fresh = found.filter { rows[$0] == nil }
        for row in fresh { rows[row] = sweeps }
        read = max(read, fresh.max() ?? 0)
        return fresh
    }
}
