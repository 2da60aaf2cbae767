import APNSimRules
import Foundation
import Testing

@Suite("Token table")
struct TokenTableTests {
    static func token(_ index: Int) -> DeviceToken {
        DeviceToken(String(format: "%064x", index))!
    }

    @Test("A page is the first tokens after a cursor in hex order, tokens of every length among them", arguments: [1, 7, 100, 5_000])
    func pages(_ limit: Int) {
        var table = TokenTable()
        var generator = SplitMix(seed: 3)
        var tokens: [DeviceToken] = []
        for _ in 0..<2_000 {
            let bytes = (0..<Int(generator.next() % 3 == 0 ? 8 : 32)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let token = DeviceToken(bytes.map { String(format: "%02x", $0) }.joined())!
            tokens.append(token)
            table[token] = World.TokenRecord(token: token, bundleID: "com.example.app", environment: .development)
        }
        let ordered = Set(tokens).sorted { $0.hex < $1.hex }
        var paged: [DeviceToken] = [], after: DeviceToken?
        while true {
            let page = table.page(after: after, limit: limit).map(\.token)
            #expect(page.count <= limit)
            paged += page
            guard page.count == limit, let last = page.last else { break }
            after = last
        }
        #expect(paged == ordered)
        #expect(table.page(after: ordered.last, limit: limit).isEmpty)
    }

    @Test("Records are found by token, counted, replaced and removed; a copy keeps what it had")
    func setGetRemove() {
        var table = TokenTable()
        for index in 0..<1_000 {
            table[Self.token(index)] = World.TokenRecord(token: Self.token(index), bundleID: "com.example.app", environment: .development)
        }
        #expect(table.count == 1_000)
        #expect(Set(table.values.map(\.token)).count == 1_000)
        let copy = table
        table[Self.token(7)]?.state = .unregistered
        table[Self.token(8)] = nil
        table[Self.token(9)] = World.TokenRecord(token: Self.token(9), bundleID: "com.example.other", environment: .production)
        #expect(table.count == 999)
        #expect(table[Self.token(7)]?.state == .unregistered)
        #expect(table[Self.token(8)] == nil)
        #expect(table[Self.token(9)]?.bundleID == "com.example.other")
        #expect(copy.count == 1_000 && copy[Self.token(7)]?.state == .active && copy[Self.token(8)] != nil)
        #expect(copy[Self.token(9)]?.bundleID == "com.example.app")
        table[Self.token(8)] = nil
        #expect(table.count == 999, "removing what is not there changes nothing")
    }
}

@Suite("Token sets")
struct TokenSetTests {
    static let yaml = """
        teams: [{id: SIMTEAM001}]
        apps: [{bundleID: com.example.app, team: SIMTEAM001}]
        tokenSets: [{count: 1000, seed: 42, bundleID: com.example.app, environment: development}]
        """

    @Test("A world file's token set: count tokens, the same for the same seed, active for its app and environment")
    func worldFile() throws {
        let world = try WorldFile.parse(Self.yaml)
        let set = TokenSet(count: 1000, seed: 42, bundleID: "com.example.app", environment: .development)
        #expect(world.tokens.count == 1000)
        #expect(world.tokenSets == [set])
        let tokens = set.tokens
        #expect(Set(tokens).count == 1000, "no two alike")
        #expect(tokens == TokenSet(count: 1000, seed: 42, bundleID: "x", environment: .production).tokens, "the seed decides them")
        #expect(tokens.allSatisfy { world.tokens[$0]?.state == .active && world.tokens[$0]?.bundleID == "com.example.app" })
        #expect(tokens.first?.hex.count == 64)
        #expect(TokenSet(count: 3, seed: 42, bundleID: "x", environment: .development, bytes: 100).tokens.first?.hex.count == 200)
        #expect(TokenSet(count: 3, seed: 43, bundleID: "x", environment: .development).tokens.first != tokens.first)
    }

    @Test("A set too large, of a bad size or for an unknown app is refused in a sentence naming it", arguments: [
        ("count: 0", "count 0; it takes 1 to 1000000"),
        ("count: 2000000", "count 2000000; it takes 1 to 1000000"),
        ("count: 5, bytes: 4", "bytes 4; a token is 8 to 100 bytes"),
        ("count: 5, bundleID: com.example.unknown", "a token set names app com.example.unknown, which is not declared under apps"),
    ])
    func refused(_ fields: String, _ sentence: String) throws {
        let yaml = Self.yaml.replacingOccurrences(of: "count: 1000", with: fields)
            .replacingOccurrences(of: "seed: 42, bundleID: com.example.app, environment", with: fields.contains("bundleID") ? "seed: 42, environment" : "seed: 42, bundleID: com.example.app, environment")
        #expect { try WorldFile.parse(yaml) } throws: { "\($0)".contains(sentence) }
    }
}
