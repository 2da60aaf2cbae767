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
        scanner.skipWhitespace()
        guard let members = scanner.members(depth: 1) else { return nil }
        scanner.skipWhitespace()
        return scanner.isAtEnd ? members : nil
    }

    /// The members of each object in the array the bytes hold, their values' places in these bytes, read in one pass
    /// (rather than ``elements(_:)`` and then ``members(_:)`` of each): for the `carry` and `receipts` of a broadcast,
    /// a hundred small objects each. `nil` when the bytes are not an array of objects by the rules of ``members(_:)``.
    public static func objectElements(_ bytes: UnsafeRawBufferPointer) -> [[Member]]? {
        array(bytes) { scanner in scanner.members(depth: 2) }
    }

    /// Where each element's text is in the array the bytes hold, checked as ``members(_:)`` checks an object's.
    public static func elements(_ bytes: UnsafeRawBufferPointer) -> [Range<Int>]? {
        array(bytes) { scanner in
            let start = scanner.at
            return scanner.value(depth: 1) ? start..<scanner.at : nil
        }
    }

    /// What `element` reads of each element of the array the bytes hold (it starts at the element and ends after it;
    /// `nil` when it is not one), or `nil` when the bytes are not such an array.
    private static func array<Element>(_ bytes: UnsafeRawBufferPointer, _ element: (inout Scanner) -> Element?) -> [Element]? {
        var scanner = Scanner(bytes: bytes)
        var elements: [Element] = []
        scanner.skipWhitespace()
        guard scanner.expect(UInt8(ascii: "[")) else { return nil }
        scanner.skipWhitespace()
        if !scanner.expect(UInt8(ascii: "]")) {
            while true {
                scanner.skipWhitespace()
                guard let read = element(&scanner) else { return nil }
                elements.append(read)
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

extension JSONObjectSyntax.Scanner {
    /// The members of the object that starts here (at `depth`), each with the place of its value's text; the scanner
    /// ends after its `}`. `nil` when it is not an object by the rules of ``value(depth:)``.
    mutating func members(depth: Int) -> [JSONObjectSyntax.Member]? {
        var members: [JSONObjectSyntax.Member] = []
        // Room for a frame's members at once: a receipt's dozen grew the array four times (`Benchmarks/instructions.sh`).
        members.reserveCapacity(16)
        let read = walkMembers(depth: depth, keys: ParsedKeys.self) { key, value in
            members.append(JSONObjectSyntax.Member(key: key, value: value))
        }
        return read ? members : nil
    }

    /// Reads the object that starts here by the rules of ``members(depth:)``, handing `body` each member's key as
    /// written between its quotes and its value's place, and making neither: for reading a few figures of a text
    /// whose other members are only passed over. `false` when it is not such an object.
    mutating func eachMember(depth: Int, _ body: (_ key: UnsafeRawBufferPointer, _ value: Range<Int>) -> Void) -> Bool {
        walkMembers(depth: depth, keys: WrittenKeys.self, body)
    }

    /// How ``walkMembers(depth:keys:_:)`` reads each key: a type, not a closure, so that each use is specialized whole, as
    /// the two loops it replaced were (`Benchmarks/instructions.sh`'s display path counts the same: 500,340 against
    /// 500,983 and 503,285 before).
    private protocol KeyReader {
        associatedtype Key
        /// The key that starts here; `nil` when it is not a string.
        static func read(_ scanner: inout JSONObjectSyntax.Scanner) -> Key?
    }

    /// Keys as strings, their escapes undone.
    private enum ParsedKeys: KeyReader {
        static func read(_ scanner: inout JSONObjectSyntax.Scanner) -> String? { scanner.parseString() }
    }

    /// Keys as written between their quotes.
    private enum WrittenKeys: KeyReader {
        static func read(_ scanner: inout JSONObjectSyntax.Scanner) -> UnsafeRawBufferPointer? {
            let start = scanner.at + 1
            guard scanner.string() else { return nil }
            return UnsafeRawBufferPointer(rebasing: scanner.bytes[start..<(scanner.at - 1)])
        }
    }

    /// The walk of an object's members both of the above take: `keys` reads each key, `body` is handed it and the
    /// place of the member's value. `false` when it is not an object by the rules of ``value(depth:)``.
    private mutating func walkMembers<Keys: KeyReader>(depth: Int, keys: Keys.Type,
                                                       _ body: (_ key: Keys.Key, _ value: Range<Int>) -> Void) -> Bool {
        guard depth <= JSONObjectSyntax.maximumDepth, expect(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if expect(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = Keys.read(&self) else { return false }
            skipWhitespace()
            guard expect(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            let start = at
            guard value(depth: depth) else { return false }
            body(key, start..<at)
            skipWhitespace()
            if expect(UInt8(ascii: "}")) { return true }
            guard expect(UInt8(ascii: ",")) else { return false }
        }
    }

    /// Reads the array that starts here by the rules of ``value(depth:)``, handing `element` a scanner at each
    /// element; it must read the element whole (`false`: the array is not one).
    mutating func eachElement(depth: Int, _ element: (inout Self) -> Bool) -> Bool {
        guard depth <= JSONObjectSyntax.maximumDepth, expect(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if expect(UInt8(ascii: "]")) { return true }
        while true {
            skipWhitespace()
            guard element(&self) else { return false }
            skipWhitespace()
            if expect(UInt8(ascii: "]")) { return true }
            guard expect(UInt8(ascii: ",")) else { return false }
        }
    }
}
