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
}
