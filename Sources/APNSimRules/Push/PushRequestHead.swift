/// The header block of one provider request, as the gateway decoded it from HPACK.
public struct PushRequestHead: Sendable {
    /// Header names in lower case (HTTP/2 requires it), pseudo-headers included, in wire order.
    public var headers: [(name: String, value: String)]

    public init(headers: [(name: String, value: String)]) {
        self.headers = headers
    }

    /// The first value of a header, or `nil`.
    public subscript(name: String) -> String? {
        headers.first { Self.same($0.name, name) }?.value
    }

    /// Whether two header names are the same: lengths first (O(1) for native strings), as most names looked past
    /// differ in length and a full comparison of two strings is the runtime's slow path (callgrind: a push asks about
    /// sixty such pairs).
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    public var method: String { self[":method"] ?? "" }
    public var path: String { self[":path"] ?? "" }

    /// The first regular header that appears more than once, if any (pseudo-headers are policed by HTTP/2 itself).
    /// A request has a dozen headers at most, so comparing pairs costs less than hashing into a set; a pseudo-header
    /// is known by its first byte (`hasPrefix` is a call into the runtime: 3,200 instructions a push went on this).
    public var firstDuplicateHeader: String? {
        for index in headers.indices where headers[index].name.utf8.first != UInt8(ascii: ":") {
            let name = headers[index].name
            for earlier in headers[..<index] where Self.same(earlier.name, name) { return name }
        }
        return nil
    }
}
