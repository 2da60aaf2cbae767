import APNSimRules
import Foundation

extension MemoryDeliveries.Table {
    /// The rows `filter` matches, ordered as SQLite orders the file's (by acceptance time, then row number), oldest or
    /// newest first, at most `limit` of them (a negative limit is none, as SQLite's `LIMIT -1`).
    func rows(matching filter: DeliveryFilter) -> [StoredDelivery] {
        guard let match = Match(filter, in: self) else { return [] }
        let limit = filter.limit < 0 ? Int.max : filter.limit
        if let token = filter.token {
            return rows(byToken[token.lowercased()] ?? [], match, limit: limit, newestFirst: filter.newestFirst)
        }
        if let device = filter.device {
            return rows(byDevice[device] ?? [], match, limit: limit, newestFirst: filter.newestFirst)
        }
        return rows((base + head)..<nextRow, match, limit: limit, newestFirst: filter.newestFirst)
    }

    /// How many rows `filter` matches, its limit aside.
    func count(matching filter: DeliveryFilter) -> Int {
        guard let match = Match(filter, in: self) else { return 0 }
        if let token = filter.token { return count(byToken[token.lowercased()] ?? [], match) }
        if let device = filter.device { return count(byDevice[device] ?? [], match) }
        return count((base + head)..<nextRow, match)
    }

    /// `numbers` ascending. When the rows were recorded in acceptance order, their own order is the reader's, and the
    /// walk stops at the limit; otherwise every match is sorted.
    private func rows(_ numbers: some BidirectionalCollection<Int>, _ match: Match, limit: Int, newestFirst: Bool) -> [StoredDelivery] {
        if acceptedInOrder {
            var found: [StoredDelivery] = []
            func take(_ number: Int) -> Bool {
                if let stored = row(number), match(stored, number) { found.append(stored) }
                return found.count < limit
            }
            guard limit > 0 else { return [] }
            if newestFirst {
                for number in numbers.reversed() where !take(number) { break }
            } else {
                for number in numbers where !take(number) { break }
            }
            return found
        }
        var matches: [(number: Int, stored: StoredDelivery)] = []
        for number in numbers {
            if let stored = row(number), match(stored, number) { matches.append((number, stored)) }
        }
        matches.sort { ($0.stored.acceptedAt, $0.number) < ($1.stored.acceptedAt, $1.number) }
        return (newestFirst ? Array(matches.suffix(limit).reversed()) : Array(matches.prefix(limit))).map(\.stored)
    }

    private func count(_ numbers: some Collection<Int>, _ match: Match) -> Int {
        numbers.count { number in row(number).map { match($0, number) } ?? false }
    }

    /// A ``DeliveryFilter``'s conditions on one row.
    struct Match {
        let filter: DeliveryFilter
        let token: String?
        let uniqueID: String?
        /// The acceptance time and row number of the page's cursor delivery (``DeliveryFilter/page``), and whether the
        /// page is of those older than it.
        let cursor: (acceptedAt: Date, number: Int, older: Bool)?

        /// `nil` when nothing can match: the cursor names a delivery the record does not hold.
        init?(_ filter: DeliveryFilter, in table: MemoryDeliveries.Table) {
            self.filter = filter
            token = filter.token?.lowercased()
            uniqueID = filter.uniqueID?.lowercased()
            if let page = filter.page {
                guard let number = table.rowNumber(of: page.id), let row = table.row(number) else { return nil }
                if case .olderThan = page { cursor = (row.acceptedAt, number, true) } else { cursor = (row.acceptedAt, number, false) }
            } else {
                cursor = nil
            }
        }

        func callAsFunction(_ row: StoredDelivery, _ number: Int) -> Bool {
            if let device = filter.device, row.device != device { return false }
            if let token, row.token != token { return false }
            if let bundleID = filter.bundleID, row.bundleID != bundleID { return false }
            if let apnsID = filter.apnsID, row.apnsID != apnsID { return false }
            if let uniqueID, row.uniqueID != uniqueID { return false }
            if let after = filter.after, !(row.acceptedAt > after) { return false }
            if filter.completedOnly && row.outcome == nil { return false }
            if let before = filter.before, !(row.acceptedAt < before) { return false }
            if let cursor {
                let older = (row.acceptedAt, number) < (cursor.acceptedAt, cursor.number)
                let newer = (cursor.acceptedAt, cursor.number) < (row.acceptedAt, number)
                if cursor.older ? !older : !newer { return false }
            }
            return true
        }
    }
}
