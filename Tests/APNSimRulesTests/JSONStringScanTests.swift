@testable import APNSimRules
import Foundation
import Testing

/// `JSONObjectSyntax` steps over a string's plain bytes, and `JSONWriter` copies them, eight at a time
/// (`JSONBytes`): every byte that is not plain must stop them, wherever it sits in the eight.
@Suite("JSON string scan")
struct JSONStringScanTests {
    static func isPlain(_ byte: UInt8, asciiOnly: Bool) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && (!asciiOnly || byte < 0x80)
    }

    @Test("A word with any byte that is not plain, in any place, among plain ones, is caught", arguments: [true, false])
    func everyByteInEveryPlace(asciiOnly: Bool) {
        for background in [UInt8(ascii: "a"), 0x20, 0x7F, UInt8(ascii: "#"), UInt8(ascii: "]"), 0x80, 0xC3, 0xFF] {
            for place in 0..<8 {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: background, count: 8)
                    bytes[place] = byte
                    let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                    let caught = JSONBytes.mayHoldSpecial(word, asciiOnly: asciiOnly)
                    let plain = Self.isPlain(byte, asciiOnly: asciiOnly) && Self.isPlain(background, asciiOnly: asciiOnly)
                    #expect(caught == !plain, "byte \(byte) at \(place) among \(background), ASCII only: \(asciiOnly)")
                }
            }
        }
    }

    @Test("Strings with an escape, a control character or UTF-8 at each offset are written as JSONSerialization reads them back")
    func writtenAtEachOffset() throws {
        for special in ["\"", "\\", "\n", "\u{1F}", "\u{7F}", "é", "🚀", "/"] {
            for offset in 0..<20 {
                let text = String(repeating: "x", count: offset) + special + String(repeating: "y", count: 19 - offset)
                var json: [UInt8] = Array(#"{"key":"#.utf8)
                JSONWriter.appendString(text, to: &json)
                json.append(UInt8(ascii: "}"))
                let read = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
                #expect(read["key"] as? String == text, "\(String(decoding: json, as: UTF8.self).debugDescription)")
            }
        }
    }

    @Test("Long strings with an escape, a control character, a quote or UTF-8 at each offset read as JSONSerialization reads them")
    func longStrings() throws {
        let specials: [[UInt8]] = [Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), Array("é".utf8),
                                   Array("🚀".utf8), [0x09], [0x1F], [0x22], [0xFF], [0xC3]]
        for special in specials {
            for offset in 0..<20 {
                let text = Array(repeating: UInt8(ascii: "x"), count: offset) + special + Array(repeating: UInt8(ascii: "y"), count: 19 - offset)
                let bytes = Array(#"{"key":""#.utf8) + text + Array(#"","after":"plain text past eight bytes"}"#.utf8)
                let foundation = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                #expect(JSONObjectSyntax.isObject(bytes) == (foundation != nil), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
                let read = JSONObjectSyntax.object(bytes)
                #expect(read?["key"]?.string == foundation?["key"] as? String, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
    }
}
