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
    public var firstDuplicateHeader: String? {
        var seen = Set<String>()
        for (name, _) in headers where !name.hasPrefix(":") {
            if !seen.insert(name).inserted { return name }
        }
        return nil
    }
}
