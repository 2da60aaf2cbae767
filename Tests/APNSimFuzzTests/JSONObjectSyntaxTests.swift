import APNSimCore
import Foundation
import Testing

/// `JSONObjectSyntax` must say yes exactly where `JSONSerialization` returns a dictionary, except for the one
/// leniency of Foundation's it declines on purpose: trailing commas.
extension Fuzz {
    @Suite("JSON object syntax")
    struct JSONObjectSyntaxTests {
        static func foundationSaysObject(_ bytes: [UInt8]) -> Bool {
            (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
        }

        /// Whether the bytes hold a comma followed, after whitespace, by a closing bracket (inside or outside a string:
        /// a mutated input that has one is left out of the comparison either way).
        static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
            let text = String(decoding: bytes, as: UTF8.self)
            return text.range(of: #",[ \t\r\n]*[\]}]"#, options: .regularExpression) != nil
        }

        @Test("Trailing commas are refused (RFC 8259), though Foundation on Linux accepts them", arguments: [
            #"{"a":[1, ]}"#,
        ])
        func trailingCommas(_ text: String) {
            #expect(!JSONObjectSyntax.isObject(Array(text.utf8)))
        }

        static let cases: [String] = [
            #"{}"#, #" { } "#, "\n\t{\r\n}\n", #"{"aps":{"alert":"Hello"}}"#,
            #"{"aps":{"alert":{"title":"T","body":"B","loc-args":["a",1,-2.5e-3,true,false,null]},"badge":0}}"#,
            #"{"a":[[],[{}],{"b":[1,2,3]}]}"#, #"{"n":0}"#, #"{"n":-0}"#, #"{"n":0.5}"#, #"{"n":1E+10}"#, #"{"n":12e-0}"#,
            #"{"s":"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE80"}"#, #"{"ünï":"cödé 🚀"}"#, #"{"a":1,"a":2}"#,
            // not objects, or not JSON
            "", " ", #"[]"#, #""s""#, #"1"#, #"true"#, #"null"#, #"{"#, #"}"#, #"{"a"}"#, #"{"a":}"#,
            #"{,}"#, #"{"a":1 "b":2}"#, #"{a:1}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":1.}"#, #"{"a":.5}"#, #"{"a":+1}"#,
            #"{"a":1e}"#, #"{"n":1e310}"#, #"{"n":-1E+400}"#, #"{"n":1e-400}"#, #"{"n":1\#(String(repeating: "0", count: 400))}"#, #"{"a":-}"#, #"{"a":tru}"#, #"{"a":nul}"#, #"{"a":[,1]}"#, #"{} {}"#, #"{}x"#,
            #"{"a":"\x"}"#, #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#, #"{"a":"unterminated}"#, "{\"a\":\"tab\tinside\"}",
            "{\"a\":\"nl\ninside\"}", #"{"a":"\uDE80"}"#, #"{"a":"\uD83D"}"#, #"{"a":"\uD83Dx"}"#, #"{"a":"\uD83D\u0041"}"#,
            #"{"a":NaN}"#, #"{"a":Infinity}"#, "{\"a\":1}\u{0}", "{/*c*/}",
        ]

        @Test("Agrees with JSONSerialization on hand-picked cases", arguments: cases)
        func handPicked(_ text: String) {
            let bytes = Array(text.utf8)
            #expect(JSONObjectSyntax.isObject(bytes) == Self.foundationSaysObject(bytes), "\(text.debugDescription)")
        }

        @Test("Agrees with JSONSerialization on bytes that are not UTF-8", arguments: [
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D],             // 0xFF never appears in UTF-8
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x22, 0x7D],             // truncated two-byte sequence
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC0, 0xAF, 0x22, 0x7D],       // overlong '/'
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D], // encoded surrogate
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x7D], // past U+10FFFF
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xE2, 0x82, 0xAC, 0x22, 0x7D], // '€', valid
        ] as [[UInt8]])
        func notUTF8(_ bytes: [UInt8]) {
            #expect(JSONObjectSyntax.isObject(bytes) == Self.foundationSaysObject(bytes), "\(bytes)")
        }

        @Test("Nesting is refused past 512 levels, as Foundation refuses it")
        func depth() {
            func nested(_ levels: Int) -> [UInt8] {
                Array((String(repeating: #"{"a":"#, count: levels - 1) + "{}" + String(repeating: "}", count: levels - 1)).utf8)
            }
            #expect(JSONObjectSyntax.isObject(nested(512)))
            #expect(!JSONObjectSyntax.isObject(nested(513)))
            #expect(JSONObjectSyntax.isObject(nested(100)) == Self.foundationSaysObject(nested(100)))
        }

        @Test("Agrees with JSONSerialization on 20,000 mutations of real payloads")
        func mutations() {
            var random = SplitMix(seed: 2197)
            let seeds = Self.cases.prefix(13).map { Array($0.utf8) }
            let alphabet = Array(#"{}[]":,\ -+.0123456789eEtrufalsn"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xA9, 0xFF]
            var disagreements: [String] = []
            for _ in 0..<20_000 {
                var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
                for _ in 0...(random.next() % 3) where !bytes.isEmpty {
                    let at = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 3 {
                    case 0: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                    }
                }
                if !Self.hasTrailingComma(bytes), JSONObjectSyntax.isObject(bytes) != Self.foundationSaysObject(bytes) {
                    disagreements.append(String(decoding: bytes, as: UTF8.self).debugDescription)
                }
            }
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        }
    }
}
