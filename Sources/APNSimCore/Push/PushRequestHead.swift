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
    /// A request has a dozen headers at most, so comparing pairs costs less than hashing into a set.
    public var firstDuplicateHeader: String? {
        for (index, field) in headers.enumerated() where !field.name.hasPrefix(":") {
            if headers[..<index].contains(where: { Self.same($0.name, field.name) }) { return field.name }
        }
        return nil
    }
}
