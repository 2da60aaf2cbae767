/// An `ActivityAttributes` type an app declares (world file, control API): its name and the fields of its static
/// attributes and of its `ContentState`, so a device can refuse what the app's `Codable` types would not decode.
/// ActivityKit decodes `content-state` with `JSONDecoder`'s default strategies (Apple, "Starting and updating Live
/// Activities with ActivityKit push notifications"): a missing field or one of the wrong kind fails; keys the type
/// does not have are ignored.
public struct ActivityAttributesType: Sendable, Hashable, Codable {
    public var name: String
    public var attributes: [String: Field]
    public var contentState: [String: Field]

    /// A field's Swift type, as the world file writes it: `String`, `Int`, `Double`, `Bool`, `Date` (seconds since
    /// 2001, `JSONDecoder`'s default), `JSON` (anything), each optional with a trailing `?`.
    public struct Field: Sendable, Hashable, Codable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            case string = "String", int = "Int", double = "Double", bool = "Bool", date = "Date", json = "JSON"
        }

        public var kind: Kind
        public var optional: Bool

        public init(_ kind: Kind, optional: Bool = false) {
            self.kind = kind
            self.optional = optional
        }

        /// Reads `String`, `Int?` …; `nil` for a type apnsim does not know.
        public init?(swiftType: String) {
            let optional = swiftType.hasSuffix("?")
            guard let kind = Kind(rawValue: optional ? String(swiftType.dropLast()) : swiftType) else { return nil }
            self.init(kind, optional: optional)
        }

        public var description: String { kind.rawValue + (optional ? "?" : "") }

        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let field = Field(swiftType: text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                    "\(text) is not one of " + Kind.allCases.map(\.rawValue).joined(separator: ", ") + " (each may end in ?)"))
            }
            self = field
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }

        /// Why `value` would not decode as this field, or `nil` when it would.
        func problem(with value: JSONValue?) -> String? {
            guard let value, value != .null else { return optional ? nil : "is missing" }
            let fits = switch kind {
            case .string: value.string != nil
            case .int: value.integer != nil
            case .double, .date: value.number != nil
            case .bool: if case .bool = value { true } else { false }
            case .json: true
            }
            if fits { return nil }
            let expected = switch kind {
            case .date: "a Date (a number)"
            case .int: "an Int"
            default: "a \(kind.rawValue)"
            }
            return "is \(value.jsonText), not \(expected)"
        }
    }

    public init(name: String, attributes: [String: Field], contentState: [String: Field]) {
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
    }

    /// Why `state` would not decode as this type's `ContentState`, in a sentence naming the field; `nil` when it would.
    public func contentStateProblem(_ state: [String: JSONValue]) -> String? {
        Self.problem(state, fields: contentState).map { "content-state does not decode as \(name).ContentState: \($0)" }
    }

    /// Why `attributes` would not decode as this type; `nil` when they would.
    public func attributesProblem(_ attributes: [String: JSONValue]) -> String? {
        Self.problem(attributes, fields: self.attributes).map { "attributes do not decode as \(name): \($0)" }
    }

    /// The problem of the first field in key order, so it is always the same; one pass, with no sorting (a device
    /// checks each push a broadcast brings it, and the usual answer is none).
    private static func problem(_ object: [String: JSONValue], fields: [String: Field]) -> String? {
        fields.compactMap { key, field in field.problem(with: object[key]).map { (key, $0) } }
            .min { $0.0 < $1.0 }
            .map { "\($0.0) \($0.1)" }
    }
}
