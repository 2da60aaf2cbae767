import Foundation

/// A value kept as JSON text: what a device wrote in its receipt, carried to the record as it came, so the gateway
/// neither decodes nor encodes it again on every push (docs/device-link.md). Whoever reads it decodes it then
/// (``decoded()``), and says so when the text does not read as a `Value` (docs/records.md).
public struct EncodedJSON<Value: Codable>: Sendable, Hashable {
    public let text: String

    /// `value` encoded as `Codable` encodes it.
    public init(_ value: Value) {
        // The values kept this way are plain Codable data: encoding them cannot fail.
        text = String(decoding: try! JSONEncoder().encode(value), as: UTF8.self)
    }

    /// JSON text as it came (a device's receipt), checked to be JSON but not to be a `Value`.
    public init(unchecked text: String) {
        self.text = text
    }

    public func decoded() throws -> Value {
        try JSONDecoder().decode(Value.self, from: Data(text.utf8))
    }
}
