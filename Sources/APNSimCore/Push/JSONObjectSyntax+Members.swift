extension JSONObjectSyntax {
    /// One member of an object: its key, and where its value's text is in the bytes read.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: Range<Int>
    }

    /// The members of the object the bytes hold, each with the place of its value's text, checked by the same
    /// rules as ``isObject(_:)`` (`nil` exactly where it says no) without building the values: for reading a few
    /// fields of a message and keeping the others as the text they came in (the gateway's reading of a device's
    /// receipt). In the order written; a key given twice is there twice.
    public static func members(_ bytes: UnsafeRawBufferPointer) -> [Member]? {
        var scanner = Scanner(bytes: bytes)
        var members: [Member] = []
        scanner.skipWhitespace()
        guard scanner.expect(UInt8(ascii: "{")) else { return nil }
        scanner.skipWhitespace()
        if !scanner.expect(UInt8(ascii: "}")) {
            while true {
                scanner.skipWhitespace()
                guard let key = scanner.parseString() else { return nil }
                scanner.skipWhitespace()
                guard scanner.expect(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                let start = scanner.at
                guard scanner.value(depth: 1) else { return nil }
                members.append(Member(key: key, value: start..<scanner.at))
                scanner.skipWhitespace()
                if scanner.expect(UInt8(ascii: "}")) { break }
                guard scanner.expect(UInt8(ascii: ",")) else { return nil }
            }
        }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? members : nil
    }

    /// Where each element's text is in the array the bytes hold, checked as ``members(_:)`` checks an object's.
    public static func elements(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var scanner = Scanner(bytes: bytes)
        var elements: [Range<Int>] = []
        scanner.skipWhitespace()
        guard scanner.expect(UInt8(ascii: "[")) else { return nil }
        scanner.skipWhitespace()
        if !scanner.expect(UInt8(ascii: "]")) {
            while true {
                scanner.skipWhitespace()
                let start = scanner.at
                guard scanner.value(depth: 1) else { return nil }
                elements.append(start..<scanner.at)
                scanner.skipWhitespace()
                if scanner.expect(UInt8(ascii: "]")) { break }
                guard scanner.expect(UInt8(ascii: ",")) else { return nil }
            }
        }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? elements : nil
    }

    /// Any one JSON value (not only an object), read by the rules of ``object(_:)``; `nil` where they say no.
    public static func value(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard let value = scanner.parse(depth: 0) else { return nil }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? value : nil
    }
}
