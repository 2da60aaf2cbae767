/// The header block of one provider request, as the gateway decoded it from HPACK.
public struct PushRequestHead: Sendable {
    /// Header names in lower case (HTTP/2 requires it), pseudo-headers included, in wire order.
    public var headers: [(name: String, value: String)]

    public init(headers: [(name: String, value: String)]) {
        self.headers = headers
    }

    /// The first value of a header, or `nil`.
    public subscript(name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    public var method: String { self[":method"] ?? "" }
    public var path: String { self[":path"] ?? "" }

    /// The first regular header that appears more than once, if any (pseudo-headers are policed by HTTP/2 itself).
    /// A request has a dozen headers at most, so comparing pairs costs less than hashing into a set.
    public var firstDuplicateHeader: String? {
        for (index, field) in headers.enumerated() where !field.name.hasPrefix(":") {
            if headers[..<index].contains(where: { $0.name == field.name }) { return field.name }
        }
        return nil
    }
}
