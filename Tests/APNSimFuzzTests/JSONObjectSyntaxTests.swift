import APNSimRules
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

        /// 20,000 seeded mutations of the real payloads among ``cases``: up to three bytes changed, removed or inserted,
        /// drawn from JSON's punctuation and `extra`.
        static func mutations(seed: UInt64, extra: String = "") -> [[UInt8]] {
            var random = SplitMix(seed: seed)
            let seeds = Self.cases.prefix(13).map { Array($0.utf8) }
            let alphabet = Array((#"{}[]":,\ -+.0123456789eEtrufalsn"# + extra).utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xA9, 0xFF]
            return (0..<20_000).map { _ in
                var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
                for _ in 0...(random.next() % 3) where !bytes.isEmpty {
                    let at = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 3 {
                    case 0: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                    case 1: bytes.remove(at: at)
                    default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                    }
                }
                return bytes
            }
        }

        @Test("Agrees with JSONSerialization on 20,000 mutations of real payloads")
        func mutations() {
            var disagreements: [String] = []
            for bytes in Self.mutations(seed: 2197) {
                if !Self.hasTrailingComma(bytes), JSONObjectSyntax.isObject(bytes) != Self.foundationSaysObject(bytes) {
                    disagreements.append(String(decoding: bytes, as: UTF8.self).debugDescription)
                }
            }
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
        }

        /// What JSONDecoder reads as `[String: JSONValue]`, the way devices read payloads before `object(_:)`.
        static func decoded(_ bytes: [UInt8]) -> [String: JSONValue]? {
            try? JSONDecoder().decode([String: JSONValue].self, from: Data(bytes))
        }

        @Test("object(_:) reads what JSONDecoder reads, and nothing where isObject says no: hand-picked and 20,000 mutations")
        func objects() {
            let inputs = Self.cases.map { Array($0.utf8) } + Self.mutations(seed: 2198, extra: "u")  // u: escapes made and broken
            var disagreements: [String] = []
            var read = 0
            for bytes in inputs {
                let parsed = JSONObjectSyntax.object(bytes)
                guard JSONObjectSyntax.isObject(bytes) else {
                    if parsed != nil { disagreements.append("read, though not an object: \(String(decoding: bytes, as: UTF8.self).debugDescription)") }
                    continue
                }
                read += 1
                // A key given twice: which value JSONDecoder keeps is its own affair; apnsim keeps the last.
                if String(decoding: bytes, as: UTF8.self).contains(#""a":1,"a":2"#) { continue }
                // Numbers JSONDecoder refuses though RFC 8259 allows them (1e-400, 0E5): the gateway accepts such a payload,
                // so a device reads it (as 0) rather than dropping it as unreadable.
                guard let foundation = Self.decoded(bytes) else { continue }
                if parsed != foundation {
                    disagreements.append("\(String(decoding: bytes, as: UTF8.self).debugDescription): \(String(describing: parsed))")
                }
            }
            #expect(read > 1_000, "enough of the mutations are objects to compare")
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
            #expect(JSONObjectSyntax.object(Array(#"{"s":"\" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE80","a":[1,-2.5e-3,true,null]}"#.utf8))
                    == ["s": .string("\" \\ / \u{8} \u{C} \n \r \t é 🚀"), "a": .array([.number(1), .number(-0.0025), .bool(true), .null])])
        }

        /// Each member as its key and its value's text.
        static func texts(_ members: [JSONObjectSyntax.Member], in bytes: UnsafeRawBufferPointer) -> [String] {
            members.map { "\($0.key)=\(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[$0.value]), as: UTF8.self))" }
        }

        @Test("objectElements(_:) reads an array of objects in one pass as elements(_:) and members(_:) read it in two; nothing else")
        func objectElements() {
            let inputs = Self.cases.map { Array($0.utf8) } + Self.mutations(seed: 2199, extra: "u")
            var disagreements: [String] = []
            var read = 0
            for input in inputs {
                let array = Array("[".utf8) + input + Array(" , ".utf8) + input + Array("]".utf8)
                array.withUnsafeBytes { bytes in
                    let twoPasses = JSONObjectSyntax.elements(bytes).flatMap { elements -> [[String]]? in
                        var objects: [[String]] = []
                        for element in elements {
                            let slice = UnsafeRawBufferPointer(rebasing: bytes[element])
                            guard let members = JSONObjectSyntax.members(slice) else { return nil }
                            objects.append(Self.texts(members, in: slice))
                        }
                        return objects
                    }
                    let onePass = JSONObjectSyntax.objectElements(bytes).map { $0.map { Self.texts($0, in: bytes) } }
                    if onePass != nil { read += 1 }
                    if onePass != twoPasses { disagreements.append(String(decoding: array, as: UTF8.self).debugDescription) }
                }
            }
            #expect(read > 1_000, "enough of the mutations are objects to compare")
            #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
            #expect(Array("[]".utf8).withUnsafeBytes(JSONObjectSyntax.objectElements)?.isEmpty == true)
            #expect(Array("[{},3]".utf8).withUnsafeBytes(JSONObjectSyntax.objectElements) == nil)
        }
    }
}
