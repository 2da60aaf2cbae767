import APNSimRules
import Foundation
import Testing

@testable import APNSimStore

/// The in-memory record's indexes keep the numbers of removed rows until a sweep: they must stay within the rows the
/// table still has room for, whatever the number of tokens, so a sandbox under load for days holds no more than its limit.
@Suite("The delivery record in memory stays within its limit")
struct MemoryDeliveriesBoundsTests {
    @Test("Ten thousand tokens through a small limit: the lists hold no more than the table's rows, and find only live ones")
    func bounded() {
        var table = MemoryDeliveries.Table()
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        for number in 0..<20_000 {
            // Each push to a token of its own half the time, else to one of five, as a load over many devices does.
            let token = number.isMultiple(of: 2) ? "t\(number)" : "shared\(number % 5)"
            table.apply(.accepted(DeliveryRecord(id: "d\(number)", apnsID: "a", device: "device-\(token)", bundleID: "b",
                                                 token: token, pushType: "alert", acceptedAt: at + Double(number))))
            table.apply(.receipt(id: "d\(number)", outcome: .displayed, content: nil, detail: nil, at: at + Double(number)))
            if number.isMultiple(of: 10) { _ = table.removeOldest(keeping: 100) }
            let entries = table.byToken.values.reduce(0) { $0 + $1.count }
            #expect(entries <= table.slots.count && table.byToken.count <= table.slots.count, "after push \(number)")
            #expect(table.slots.count <= 2 * 1_024 + 200, "the empty front of the rows is dropped")
            if !number.isMultiple(of: 997) { continue }
            #expect(table.count <= 110 && table.count == table.completed)
            for shared in 0..<5 {
                let found = table.rows(matching: DeliveryFilter(token: "shared\(shared)", limit: 1_000))
                #expect(found.allSatisfy { $0.token == "shared\(shared)" } && table.count(matching: DeliveryFilter(token: "shared\(shared)")) == found.count)
            }
        }
        #expect(table.byToken.count < 1_200 && table.byDevice.count < 1_200, "tokens whose rows all went are forgotten")
    }
}
