/// Whether a push body is one JSON object (RFC 8259), without building it: the gateway only needs the yes or
/// no, and Foundation's `JSONSerialization` was the largest cost of validation in `Benchmarks/provider.sh`
/// profiles. `JSONObjectSyntaxTests` holds it to `JSONSerialization`'s answers.
///
/// UTF-8 only (APNs payloads are UTF-8), strictly validated, including `\u` escapes that must pair surrogates;
/// whitespace around the object is allowed; as Foundation does, nesting deeper than 512 levels and numbers
/// beyond a Double's range are refused. Where Foundation on Linux is lenient, apnsim keeps to RFC 8259: a
/// trailing comma (`{"a":1,}`) is refused. Apple does not say which parser its servers use;
/// RFC 8259 is the contract both sides can read.
public enum JSONObjectSyntax {
    public static func isObject(_ bytes: some Collection<UInt8>) -> Bool {
        if let answer = bytes.withContiguousStorageIfAvailable({ isObject(UnsafeRawBufferPointer($0)) }) {
            return answer
        }
        return Array(bytes).withUnsafeBytes { isObject($0) }
    }

    public static func isObject(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
        scanner.skipWhitespace()
        return scanner.isAtEnd
    }

    /// The object the bytes hold, read by the same rules as ``isObject(_:)`` (`nil` exactly where it says no), for a
    /// device reading a payload. Decoding `[String: JSONValue]` through `JSONDecoder` tries each kind of value in turn
    /// and builds an error for every miss; it was a fifth of a device process's time in `Benchmarks/e2e.sh`
    /// profiles. A key given twice keeps its last value.
    public static func object(_ bytes: some Collection<UInt8>) -> [String: JSONValue]? {
        if let answer = bytes.withContiguousStorageIfAvailable({ object(UnsafeRawBufferPointer($0)) }) {
            return answer
        }
        return Array(bytes).withUnsafeBytes { object($0) }
    }

    public static func object(_ bytes: UnsafeRawBufferPointer) -> [String: JSONValue]? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{"), case .object(let object)? = scanner.parse(depth: 0) else { return nil }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? object : nil
    }

    static let maximumDepth = 512

    struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var at = 0

        var isAtEnd: Bool { at == bytes.count }
        var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        mutating func skipWhitespace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
        }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard peek == byte else { return false }
            at += 1
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard let byte = peek else { return false }
            switch byte {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            guard depth <= maximumDepth, expect(UInt8(ascii: "{")) else { return false }
            skipWhitespace()
            if expect(UInt8(ascii: "}")) { return true }
            while true {
                skipWhitespace()
                guard string() else { return false }
                skipWhitespace()
                guard expect(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
                if expect(UInt8(ascii: "}")) { return true }
                guard expect(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func array(depth: Int) -> Bool {
            guard depth <= maximumDepth, expect(UInt8(ascii: "[")) else { return false }
            skipWhitespace()
            if expect(UInt8(ascii: "]")) { return true }
            while true {
                skipWhitespace()
                guard value(depth: depth) else { return false }
                skipWhitespace()
                if expect(UInt8(ascii: "]")) { return true }
                guard expect(UInt8(ascii: ",")) else { return false }
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard bytes.count - at >= count else { return false }
            for offset in 0..<count where bytes[at + offset] != word.utf8Start[offset] { return false }
            at += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and finite as a Double.
        mutating func number() -> Bool {
            let start = at
            _ = expect(UInt8(ascii: "-"))
            if expect(UInt8(ascii: "0")) {
                // A leading zero stands alone.
            } else {
                guard let first = peek, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
                skipDigits()
            }
            if expect(UInt8(ascii: ".")) {
                guard digitsFollow() else { return false }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                at += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
                guard digitsFollow() else { return false }
                return isFinite(from: start)
            }
            return at - start < 300 || isFinite(from: start)
        }

        /// Whether the number that starts at `start` fits a Double; only numbers with an exponent or hundreds
        /// of digits can overflow, so only they pay for parsing.
        private func isFinite(from start: Int) -> Bool {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            return Double(text)?.isFinite ?? false
        }

        private mutating func digitsFollow() -> Bool {
            guard let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            skipDigits()
            return true
        }

        private mutating func skipDigits() {
            while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { at += 1 }
        }

        mutating func string() -> Bool {
            guard expect(UInt8(ascii: "\"")) else { return false }
            while true {
                at = JSONBytes.plainEnd(of: bytes, from: at, asciiOnly: true)
                guard let byte = peek else { return false }
                switch byte {
                case UInt8(ascii: "\""):
                    at += 1
                    return true
                case UInt8(ascii: "\\"):
                    at += 1
                    guard escape() else { return false }
                case 0..<0x20:
                    return false  // control characters must be escaped
                case 0x80...:
                    guard utf8Sequence() else { return false }
                default:
                    at += 1
                }
            }
        }

        private mutating func escape() -> Bool {
            guard let byte = peek else { return false }
            at += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return true
            case UInt8(ascii: "u"):
                guard let unit = hexUnit() else { return false }
                switch unit {
                case 0xD800...0xDBFF:  // a high surrogate needs a low one next
                    guard expect(UInt8(ascii: "\\")), expect(UInt8(ascii: "u")), let low = hexUnit() else { return false }
                    return (0xDC00...0xDFFF).contains(low)
                case 0xDC00...0xDFFF:
                    return false
                default:
                    return true
                }
            default:
                return false
            }
        }

        private mutating func hexUnit() -> UInt16? {
            guard bytes.count - at >= 4 else { return nil }
            var unit: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[at]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                unit = unit << 4 | UInt16(digit)
                at += 1
            }
            return unit
        }

        /// One well-formed UTF-8 sequence of two to four bytes (Unicode Table 3-7): no overlong forms, no
        /// surrogates, nothing past U+10FFFF.
        private mutating func utf8Sequence() -> Bool {
            let lead = bytes[at]
            let continuations: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: continuations = 1
            case 0xE0: continuations = 2; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: continuations = 2
            case 0xED: continuations = 2; secondRange = 0x80...0x9F
            case 0xF0: continuations = 3; secondRange = 0x90...0xBF
            case 0xF1...0xF3: continuations = 3
            case 0xF4: continuations = 3; secondRange = 0x80...0x8F
            default: return false
            }
            guard bytes.count - at > continuations, secondRange.contains(bytes[at + 1]) else { return false }
            for offset in stride(from: 2, through: continuations, by: 1) where !(0x80...0xBF).contains(bytes[at + offset]) {
                return false
            }
            at += continuations + 1
            return true
        }
    }
}

extension JSONObjectSyntax.Scanner {
    /// The value at the scanner, checked by the same steps as ``value(depth:)``, or `nil` where that says no.
    mutating func parse(depth: Int) -> JSONValue? {
        guard let byte = peek else { return nil }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth + 1 <= JSONObjectSyntax.maximumDepth, expect(UInt8(ascii: "{")) else { return nil }
            var object: [String: JSONValue] = [:]
            skipWhitespace()
            if expect(UInt8(ascii: "}")) { return .object(object) }
            // Room for a payload's usual few keys at once: grown from empty, a dictionary moved and rehashed its keys at
            // every insert of the first few, 660 instructions each (`Benchmarks/instructions.sh`, the display path).
            object.reserveCapacity(4)
            while true {
                skipWhitespace()
                guard let key = parseString() else { return nil }
                skipWhitespace()
                guard expect(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                guard let value = parse(depth: depth + 1) else { return nil }
                object[key] = value
                skipWhitespace()
                if expect(UInt8(ascii: "}")) { return .object(object) }
                guard expect(UInt8(ascii: ",")) else { return nil }
            }
        case UInt8(ascii: "["):
            guard depth + 1 <= JSONObjectSyntax.maximumDepth, expect(UInt8(ascii: "[")) else { return nil }
            var array: [JSONValue] = []
            skipWhitespace()
            if expect(UInt8(ascii: "]")) { return .array(array) }
            while true {
                skipWhitespace()
                guard let value = parse(depth: depth + 1) else { return nil }
                array.append(value)
                skipWhitespace()
                if expect(UInt8(ascii: "]")) { return .array(array) }
                guard expect(UInt8(ascii: ",")) else { return nil }
            }
        case UInt8(ascii: "\""):
            return parseString().map(JSONValue.string)
        case UInt8(ascii: "t"):
            return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"):
            return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"):
            return literal("null") ? .null : nil
        default:
            let start = at
            guard number() else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
            return Double(text).map(JSONValue.number)
        }
    }

    /// A string checked by ``string()``, then read: as it stands when it has no escapes, else unescaped (re-reading
    /// what ``string()`` checked, with the same ``hexUnit()``).
    mutating func parseString() -> String? {
        let start = at + 1
        guard string() else { return nil }
        let end = at - 1
        let body = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
        var reader = Self(bytes: bytes, at: start)
        var utf8: [UInt8] = []
        utf8.reserveCapacity(body.count)
        while reader.at < end {
            let byte = bytes[reader.at]
            reader.at += 1
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                continue
            }
            let escaped = bytes[reader.at]
            reader.at += 1
            switch escaped {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(reader.hexUnit() ?? 0)
                if (0xD800...0xDBFF).contains(scalar) {  // string() has checked that its low half follows
                    reader.at += 2
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (UInt32(reader.hexUnit() ?? 0xDC00) - 0xDC00)
                }
                utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: utf8.append(escaped)  // " \\ /
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
