import APNSimRules
import Foundation
import Synchronization

/// The delivery record of a store kept in memory: the rows in the order they were recorded, found by ID, token and
/// device, with what SQLite's `deliveries` table does for a store file (``Store``), statement for statement.
///
/// A delivered push writes its record when it is accepted and again when its receipt comes. In SQLite that was a
/// B-tree insert into the table and each of its four indexes, a search for the row, and its rewrite: nearly a third of
/// the gateway's time on a plain push (`perf record`, docs/speed.md). Here it is an append, three dictionary entries and
/// a field set in place.
final class MemoryDeliveries: Sendable {
    private let table = Mutex(Table())

    /// Applies the events that change deliveries, in order (``Store/apply(_:)`` keeps the rest); returns the display
    /// latencies of the receipts among them (``AppliedDeliveries/displayLatencies``).
    func apply(_ events: [DeliveryEvent]) -> [Double] {
        table.withLock { table in
            var latencies: [Double] = []
            for event in events {
                if let latency = table.apply(event) { latencies.append(latency) }
            }
            return latencies
        }
    }

    /// Removes all but the newest `keeping` rows, and the rows accepted before `before`; returns how many went.
    func trim(keeping: Int?, before: Date?) -> Int {
        table.withLock { table in
            var removed = 0
            if let keeping { removed += table.removeOldest(keeping: keeping) }
            if let before { removed += table.removeAccepted(before: before) }
            return removed
        }
    }

    /// Empties the record. The old rows are freed after the lock is let go: a hundred thousand of them take a while, and
    /// readers need not wait for that.
    func deleteAll() {
        let emptied = table.withLock { table in
            defer { table = Table() }
            return table
        }
        withExtendedLifetime(emptied) {}
    }

    /// How many deliveries are recorded, and how many of them have an outcome.
    var counts: (total: Int, completed: Int) {
        table.withLock { ($0.count, $0.completed) }
    }

    /// The deliveries `filter` matches, in its order (oldest or newest first). The rows are copied under the lock and
    /// read (their receipts' JSON decoded) after it.
    func deliveries(matching filter: DeliveryFilter) -> [DeliveryRecord] {
        table.withLock { $0.rows(matching: filter) }.map(DeliveryRecord.init)
    }

    /// How many deliveries `filter` matches, its `limit` aside.
    func count(matching filter: DeliveryFilter) -> Int {
        table.withLock { $0.count(matching: filter) }
    }
}

extension MemoryDeliveries {
    /// The rows and their indexes. A row's place is its row number, counted from 1 and never reused, as SQLite's
    /// `rowid` is: rows removed leave `nil` until the front of `slots` is dropped.
    struct Table {
        /// `slots[i]` holds row number `base + i`; those before `head` are gone.
        private(set) var slots: [StoredDelivery?] = []
        private(set) var base = 1
        private(set) var head = 0
        private var byID: [String: Int] = [:]
        /// The row numbers of each token's and each device's rows, ascending. Entries of removed rows are dropped when
        /// the row goes, or skipped by readers until then.
        private(set) var byToken: [String: [Int]] = [:]
        private(set) var byDevice: [String: [Int]] = [:]
        private(set) var count = 0
        private(set) var completed = 0
        /// Whether rows were recorded in the order of their acceptance times (each at or after the one before), as
        /// they are unless a clock is set back: then the rows in their own order are already in a reader's order.
        private(set) var acceptedInOrder = true
        private var lastAccepted = -Double.infinity

        /// The row with number `row`, if it is still there.
        func row(_ row: Int) -> StoredDelivery? {
            let index = row - base
            return index >= head && index < slots.count ? slots[index] : nil
        }

        /// The number of the row with this delivery ID.
        func rowNumber(of id: String) -> Int? {
            byID[id]
        }

        /// The number the next row gets.
        var nextRow: Int { base + slots.count }

        /// Applies one event; returns, for a receipt that says a push the table holds was displayed, the seconds from
        /// its acceptance to the receipt.
        @discardableResult
        mutating func apply(_ event: DeliveryEvent) -> Double? {
            switch event {
            case .accepted(let record):
                insert(StoredDelivery(accepted: record))
            case .acknowledged(let id, let at):
                update(id) { row in
                    if row.deliveredAt == nil { row.deliveredAt = at }
                }
            case .stored(let id, let reason, let at, _):
                update(id) { row in
                    row.storedAt = row.storedAt ?? at
                    row.storedFor = reason
                }
            case .forgotten(let id, let detail, let at):
                update(id) { row in
                    guard row.outcome == nil else { return }
                    row.outcome = .dropped
                    row.detail = detail
                    row.deliveredAt = row.deliveredAt ?? at
                    row.displayedAt = at
                }
            case .receipt(let id, let outcome, let content, let detail, let at, let extensionRun, let presentation, let activity):
                var accepted: Date?
                update(id) { row in
                    accepted = row.acceptedAt
                    row.outcome = outcome
                    row.content = content
                    row.detail = detail
                    row.displayedAt = at
                    row.deliveredAt = row.deliveredAt ?? at
                    row.extensionRun = extensionRun
                    row.presentation = presentation
                    row.activity = activity
                }
                guard outcome == .displayed, let accepted else { return nil }
                return at.timeIntervalSince(accepted)
            case .handedOff, .handOffDone, .linked, .unlinked, .storedClaimed, .channelCreated, .channelDeleted, .broadcastShared:
                break  // memory has one gateway: nothing is handed to another, no link is another's
            case .registered, .unregistered, .held, .released, .releasedAll:
                // Kept only for a gateway restarted on a store file (`Store.deviceState()`): the recorder queues none
                // for a store in memory.
                break
            }
            return nil
        }

        /// `INSERT OR REPLACE`: a row with the same ID goes, and this one is recorded last.
        private mutating func insert(_ stored: StoredDelivery) {
            if let old = byID[stored.id], let previous = row(old) {
                _ = remove(old)
                unindex(old, token: previous.token, device: previous.device)
            }
            let number = nextRow
            slots.append(stored)
            byID[stored.id] = number
            byToken[stored.token, default: []].append(number)
            byDevice[stored.device, default: []].append(number)
            count += 1
            if stored.outcome != nil { completed += 1 }
            let accepted = stored.acceptedAt.timeIntervalSinceReferenceDate
            if accepted < lastAccepted { acceptedInOrder = false }
            lastAccepted = accepted
        }

        /// Changes the row with this ID in place; an ID the record does not hold (dropped past a limit) changes nothing.
        private mutating func update(_ id: String, _ change: (inout StoredDelivery) -> Void) {
            guard let number = byID[id] else { return }
            let index = number - base
            let wasCompleted = slots[index]!.outcome != nil
            change(&slots[index]!)
            if !wasCompleted && slots[index]!.outcome != nil { completed += 1 }
        }

        /// Removes the oldest rows until `keeping` are left; returns how many went.
        mutating func removeOldest(keeping: Int) -> Int {
            var removed = 0
            var index = head
            while count > max(keeping, 0) && index < slots.count {
                if remove(base + index) { removed += 1 }
                index += 1
            }
            dropFront()
            return removed
        }

        /// Removes the rows accepted before `before`; returns how many went.
        mutating func removeAccepted(before: Date) -> Int {
            var removed = 0
            for index in head..<slots.count where slots[index]?.acceptedAt ?? .distantFuture < before {
                if remove(base + index) { removed += 1 }
            }
            dropFront()
            return removed
        }

        /// Empties the row's slot and forgets its ID. Its token's and device's lists keep its number until the next
        /// ``sweep()`` (readers skip it): finding it there for every row removed cost more than the rest of a push's
        /// record (callgrind, 1,000 deliveries kept).
        private mutating func remove(_ number: Int) -> Bool {
            let index = number - base
            guard let stored = slots[index].take() else { return false }
            if byID[stored.id] == number { byID[stored.id] = nil }
            count -= 1
            if stored.outcome != nil { completed -= 1 }
            return true
        }

        /// Takes one removed row's number out of its token's and device's lists (a row replaced, which the sweep
        /// might not reach for long).
        private mutating func unindex(_ number: Int, token: String, device: String) {
            Self.prune(&byToken[token]) { $0 != number }
            Self.prune(&byDevice[device]) { $0 != number }
        }

        /// Drops removed rows from every token's and device's list, and the lists left empty.
        private mutating func sweep() {
            let (slots, base, head) = (self.slots, self.base, self.head)
            let isLive = { (number: Int) in number - base >= head && slots[number - base] != nil }
            for key in Array(byToken.keys) { Self.prune(&byToken[key], keeping: isLive) }
            for key in Array(byDevice.keys) { Self.prune(&byDevice[key], keeping: isLive) }
        }

        /// Keeps the row numbers `keeping` accepts, in place, and the entry only if some are left. Static, and given
        /// only what it reads: a method of the table changing one of its lists would copy the table for the call,
        /// and the list's dictionary with it (callgrind: 18,000 instructions a push, with 1,000 deliveries kept).
        private static func prune(_ rows: inout [Int]?, keeping: (Int) -> Bool) {
            rows?.removeAll { !keeping($0) }
            if rows?.isEmpty == true { rows = nil }
        }

        /// Moves `head` past the empty slots at the front, and drops them once they are half of the array, sweeping
        /// the lists then: a row removed costs one move and one look in its lists, on average.
        private mutating func dropFront() {
            while head < slots.count && slots[head] == nil { head += 1 }
            guard head > 1_024 && head * 2 > slots.count else { return }
            slots.removeFirst(head)
            base += head
            head = 0
            sweep()
        }
    }
}
