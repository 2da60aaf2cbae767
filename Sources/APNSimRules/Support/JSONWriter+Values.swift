import Foundation

/// Numbers, dates and free-form JSON as ``JSONWriter`` writes them, each as `JSONEncoder` writes it with its defaults, so
/// what one writes the other's reader takes alike.
extension JSONWriter {
    public mutating func field(_ name: StaticString, _ value: Double?) {
        guard let value else { return }
        key(name)
        Self.appendNumber(value, to: &bytes)
    }

    /// A date as `JSONEncoder` writes one by default: seconds since 1 January 2001 (`timeIntervalSinceReferenceDate`).
    public mutating func field(_ name: StaticString, date: Date?) {
        field(name, date?.timeIntervalSinceReferenceDate)
    }

    public mutating func field(_ name: StaticString, dates: [Date]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, date) in dates.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendNumber(date.timeIntervalSinceReferenceDate, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    public mutating func field(_ name: StaticString, _ object: [String: JSONValue]?) {
        guard let object else { return }
        key(name)
        Self.append(.object(object), to: &bytes)
    }

    /// A field whose value is an object written already (by another ``JSONWriter``).
    public mutating func field(_ name: StaticString, object: [UInt8]?) {
        guard let object else { return }
        key(name)
        bytes.append(contentsOf: object)
    }

    /// `value` as JSON text; an object's members in the dictionary's own order, as `JSONEncoder` writes them.
    public static func append(_ value: JSONValue, to json: inout [UInt8]) {
        switch value {
        case .null: json.append(contentsOf: "null".utf8)
        case .bool(let flag): json.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number): appendNumber(number, to: &json)
        case .string(let text): appendString(text, to: &json)
        case .array(let elements):
            json.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                append(element, to: &json)
            }
            json.append(UInt8(ascii: "]"))
        case .object(let members):
            json.append(UInt8(ascii: "{"))
            for (index, (name, member)) in members.enumerated() {
                if index > 0 { json.append(UInt8(ascii: ",")) }
                appendString(name, to: &json)
                json.append(UInt8(ascii: ":"))
                append(member, to: &json)
            }
            json.append(UInt8(ascii: "}"))
        }
    }

    /// A number as `JSONEncoder` writes a `Double`: its shortest exact text, without a trailing `.0` (`40`, `2.5`,
    /// `1e+20`). JSON has no infinity or NaN, which `JSONEncoder` refuses to write; they are written `null` here (no
    /// value read from JSON is one).
    public static func appendNumber(_ value: Double, to json: inout [UInt8]) {
        guard value.isFinite else {
            json.append(contentsOf: "null".utf8)
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        json.append(contentsOf: text.utf8)
    }
}

extension JSONWriter {
    /// A field whose value is an array of strings.
    public mutating func field(_ name: StaticString, strings: [String]) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            Self.appendString(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
