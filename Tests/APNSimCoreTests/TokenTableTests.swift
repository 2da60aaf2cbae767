import APNSimCore
import Foundation
import Testing

@Suite("Token table")
struct TokenTableTests {
    static func token(_ index: Int) -> DeviceToken {
        DeviceToken(String(format: "%064x", index))!
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
