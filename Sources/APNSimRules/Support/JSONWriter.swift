/// JSON text written by hand, for what goes out on every push's path (the device link's `push` and `ack`, the
/// record's rows): `JSONEncoder` builds a tree of boxes per value, and its share of the gateway's time in
/// `Benchmarks/e2e.sh` profiles was a tenth. Everything else stays `Codable`.
///
/// An object is written field by field, in the order given; a `nil` field is left out, as `Codable`'s
/// `encodeIfPresent` leaves it out.
public struct JSONWriter: Sendable {
    public internal(set) var bytes: [UInt8]
    private var fields = 0

    /// Starts an object.
    public init(capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Ends the object and returns its text.
    public consuming func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    mutating func key(_ name: StaticString) {
        if fields > 0 { bytes.append(UInt8(ascii: ",")) }
        fields += 1
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }  // names are plain ASCII: nothing to escape
        // Two appends of a byte, not `append(contentsOf:)` of a two-byte array: its generic copy is a hundred instructions.
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func field(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        key(name)
        Self.appendString(value, to: &bytes)
    }

    public mutating func field(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    public mutating func field(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// A field whose value is JSON text already (checked by whoever made it).
    public mutating func field(_ name: StaticString, json: String?) {
        guard var json else { return }
        key(name)
        json.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A field whose value is an array of JSON texts written already (each checked by whoever made it).
    public mutating func field(_ name: StaticString, elements: [[UInt8]]) {
        key(name)
        Self.appendArray(elements, to: &bytes)
    }

    /// An array of JSON texts written already (each checked by whoever made it), as its own text.
    public static func array(_ elements: [[UInt8]]) -> [UInt8] {
        var json: [UInt8] = []
        json.reserveCapacity(elements.reduce(2) { $0 + $1.count + 1 })
        appendArray(elements, to: &json)
        return json
    }

    private static func appendArray(_ elements: [[UInt8]], to json: inout [UInt8]) {
        json.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            json.append(contentsOf: element)
        }
        json.append(UInt8(ascii: "]"))
    }

    /// `text` as a JSON string (RFC 8259 §7): quote, backslash and control characters escaped; every other byte of
    /// the UTF-8 as it is (so `/` stays `/`, and non-ASCII text stays readable).
    public static func appendString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        defer { json.append(UInt8(ascii: "\"")) }
        func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            let raw = UnsafeRawBufferPointer(bytes)
            let plain = JSONBytes.plainEnd(of: raw, from: 0, asciiOnly: false)
            if plain == bytes.count {
                json.append(contentsOf: bytes)  // the usual case: nothing to escape, one copy
            } else {
                appendEscaped(raw, plainUpTo: plain, to: &json)
            }
        }
        // A native string's bytes are read where they are; only a bridged one is copied to be made contiguous.
        if text.utf8.withContiguousStorageIfAvailable(append) == nil {
            var text = text
            text.withUTF8(append)
        }
    }

    /// `bytes`, whose first `plain` need no escape, escaped into a buffer of their escaped size and appended in one
    /// copy. A `push` carries its payload as a string, a quarter of it quotes: appended a byte at a time, as it was,
    /// with a uniqueness and a capacity check each, it cost the gateway 6,500 instructions a push more than it does now
    /// (`Benchmarks/instructions.sh`, the display path: 2,400 for the escaping now).
    private static func appendEscaped(_ bytes: UnsafeRawBufferPointer, plainUpTo plain: Int, to json: inout [UInt8]) {
        let source = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count = bytes.count
        var size = count
        for index in plain..<count {
            let byte = source[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { size += 1 } else if byte < 0x20 { size += 5 }
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { out in
            let base = out.baseAddress!
            base.initialize(from: source, count: plain)
            var at = plain
            for index in plain..<count {
                let byte = source[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    (base[at], base[at + 1]) = (UInt8(ascii: "\\"), byte)
                    at += 2
                } else if byte < 0x20 {
                    (base[at], base[at + 1], base[at + 2], base[at + 3]) = (UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"))
                    (base[at + 4], base[at + 5]) = (hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)])
                    at += 6
                } else {
                    base[at] = byte
                    at += 1
                }
            }
            json.append(contentsOf: UnsafeBufferPointer(start: base, count: size))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
