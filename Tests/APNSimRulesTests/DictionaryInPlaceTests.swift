import APNSimRules
import Testing

@Suite("Changing a dictionary's values where they are stored")
struct DictionaryInPlaceTests {
    struct Held: Equatable {
        var name: String
        var count = 0
    }

    @Test("inPlace changes the value for a key and returns what the change returned; no value, no change and nil")
    func inPlace() {
        var held = ["a": Held(name: "A"), "b": Held(name: "B")]
        #expect(held.inPlace("a") { value -> String in
            value.count += 1
            return value.name
        } == "A")
        #expect(held.inPlace("z") { $0.count += 1 } == nil)
        #expect(held == ["a": Held(name: "A", count: 1), "b": Held(name: "B")])
    }

    @Test("forEachInPlace hands each stored value once to change")
    func forEachInPlace() {
        var held = Dictionary(uniqueKeysWithValues: (0..<100).map { ("k\($0)", Held(name: "n\($0)")) })
        var seen: [String] = []
        held.forEachInPlace { value in
            seen.append(value.name)
            value.count = Int(value.name.dropFirst())!
        }
        #expect(seen.sorted() == held.values.map(\.name).sorted())
        #expect(held.allSatisfy { $0.value.count == Int($0.key.dropFirst())! && $0.value.name == "n\($0.value.count)" })
    }
}
