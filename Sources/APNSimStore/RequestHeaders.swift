import APNSimRules
import Foundation

/// A request's headers as a send record keeps them: the text of a JSON object of name → value, pseudo-headers
/// included, a repeated name keeping its first value. Kept as the text the record's row holds, written once in the
/// request's order, not as a dictionary: the gateway records every push, and hashing each request's headers into a
/// dictionary only to write them out as JSON again cost it 5,000 instructions a push (`Benchmarks/instructions.sh`,
/// the provider path). A reader makes the dictionary when it asks for one, instead of every row read making one.
public struct RequestHeaders: Sendable, Hashable, Codable, ExpressibleByDictionaryLiteral {
    /// The JSON object's text, as UTF-8: made into a `String` only when asked for (making one checks every byte is
    /// UTF-8 again, a few instructions a byte of each push's headers).
    public let json: [UInt8]

    /// The JSON object's text.
    public var text: String { String(decoding: json, as: UTF8.self) }

    /// `headers` in their order, a repeated name keeping its first value, each value as `value` gives it (the
    /// gateway keeps a provider token without its signature). A concrete array and a closure, not a generic
    /// collection: called from another module, a generic one was not specialized, and looking up its types' metadata
    /// cost 36,000 instructions a push.
    public init(_ headers: [(name: String, value: String)], value: (_ name: String, _ value: String) -> String = { $1 }) {
        var json: [UInt8] = [UInt8(ascii: "{")]
        json.reserveCapacity(headers.reduce(2) { $0 + $1.name.utf8.count + $1.value.utf8.count + 6 })
        for (index, (name, original)) in headers.enumerated() where !headers[..<index].contains(where: { $0.name == name }) {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(name, to: &json)
            json.append(UInt8(ascii: ":"))
            JSONWriter.appendString(value(name, original), to: &json)
        }
        json.append(UInt8(ascii: "}"))
        self.json = json
    }

    public init(_ dictionary: [String: String]) {
        self.init(dictionary.map { (name: $0.key, value: $0.value) })
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    /// Text read back from a row this type wrote.
    init(text: String) {
        json = Array(text.utf8)
    }

    /// The headers by name; empty when the text is not a JSON object of strings (no row written here is not one).
    public var dictionary: [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(json))) ?? [:]
    }

    public subscript(name: String) -> String? {
        dictionary[name]
    }

    /// Equal when they hold the same names and values, in whatever order.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.json == rhs.json || lhs.dictionary == rhs.dictionary
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(dictionary)
    }

    /// Written as the JSON object it is.
    public func encode(to encoder: any Encoder) throws {
        try dictionary.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self.init(try [String: String](from: decoder))
    }
}
