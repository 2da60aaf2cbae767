@testable import APNSimGateway
import Foundation
import Testing

@Suite("Response IDs")
struct ResponseIDTests {
    @Test("Generated IDs are distinct version-4 UUIDs in the case Apple uses")
    func versionFourUUIDs() {
        var generator = RandomUUIDs(seed: 42)
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let upper = generator.upperCaseUUID()
            let lower = generator.lowerCaseUUID()
            for (id, isUpper) in [(upper, true), (lower, false)] {
                #expect(UUID(uuidString: id) != nil, "\(id)")
                #expect(id == (isUpper ? id.uppercased() : id.lowercased()))
                let characters = Array(id)
                #expect(characters[14] == "4", "version nibble of \(id)")
                #expect("89abAB".contains(characters[19]), "variant of \(id)")
                #expect(seen.insert(id.lowercased()).inserted)
            }
        }
        var another = RandomUUIDs()
        var third = RandomUUIDs()
        #expect(another.upperCaseUUID() != third.upperCaseUUID(), "connections are seeded apart")
    }

    @Test("Delivery IDs are version-7 UUIDs, each sorting after the last: within a millisecond, past the counter's end, and when the clock goes back")
    func orderedUUIDs() throws {
        var generator = RandomUUIDs(seed: 7)
        let start: UInt64 = 1_795_000_000_000  // 2026-11-18, in milliseconds since 1970
        // 5,000 in one millisecond (more than the 12-bit counter holds), then the clock a second back, then on again.
        let clock = Array(repeating: start, count: 5_000) + Array(repeating: start - 1_000, count: 10) + [start + 5, start + 6]
        var last = ""
        for (index, now) in clock.enumerated() {
            let id = generator.orderedUUID(milliseconds: now)
            #expect(UUID(uuidString: id) != nil, "\(id)")
            #expect(id == id.uppercased())
            let characters = Array(id)
            #expect(characters[14] == "7", "version nibble of \(id)")
            #expect("89AB".contains(characters[19]), "variant of \(id)")
            #expect(id > last, "ID \(index), \(id), sorts after \(last)")
            last = id
        }
        // The first 48 bits are the time: the clock's own in the first millisecond, carried on from the last ID's past
        // the counter's end and while the clock was behind, the clock's own again once it is ahead.
        let milliseconds = { (id: String) in UInt64(id.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)! }
        var fresh = RandomUUIDs(seed: 7)
        #expect(milliseconds(fresh.orderedUUID(milliseconds: start)) == start)
        #expect(milliseconds(last) == start + 6)
    }
}
