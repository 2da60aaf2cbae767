/// A device token as it appears in `/3/device/<token>`: the hex form of the token's bytes.
///
/// Apple says never to assume a size; tokens of 32, 54 and 80 bytes are seen and Apple once announced up to 100 (Apple,
/// "Sending notification requests to APNs"). apnsim accepts 8 to 100 bytes of hex in either case and compares tokens in
/// lower case.
public struct DeviceToken: Hashable, Sendable, CustomStringConvertible, Codable {
    /// Lower-case hex.
    public let hex: String

    public static let byteCountRange = 8...100

    /// Parses the path form. Returns `nil`, with `problem` set, when the token is not hex of an allowed length.
    public init?(hex raw: Substring, problem: inout String) {
        guard raw.utf8.count % 2 == 0 else {
            problem = "a device token is the hex form of its bytes, so it has an even number of digits; this one has \(raw.utf8.count)"
            return nil
        }
        guard Self.byteCountRange.contains(raw.utf8.count / 2) else {
            problem = "a device token is \(Self.byteCountRange.lowerBound) to \(Self.byteCountRange.upperBound) bytes (\(Self.byteCountRange.lowerBound * 2) to \(Self.byteCountRange.upperBound * 2) hex digits); this one has \(raw.utf8.count) digits"
            return nil
        }
        // One pass over the bytes where they are: a device reads a token for each push a broadcast carries to it.
        let (hex, upper) = raw.utf8.withContiguousStorageIfAvailable(Self.scan) ?? Self.scan(Array(raw.utf8))
        guard hex else {
            problem = "a device token may hold only the hex digits 0-9 and a-f"
            return nil
        }
        // Most tokens are lower case already (every token apnsim issues): those are taken as they are.
        self.hex = upper ? raw.lowercased() : String(raw)
    }

    /// Parses a token the caller vouches for, such as one from a world file; `nil` if it is not valid hex.
    public init?(_ raw: String) {
        var problem = ""
        self.init(hex: Substring(raw), problem: &problem)
    }

    /// A token made here as lower-case hex of an allowed length (``TokenSet``), taken as it is.
    init(verifiedHex hex: String) {
        self.hex = hex
    }

    public var description: String { hex }

    /// The first 8 digits and an ellipsis, for explanations.
    public var short: String { hex.count > 12 ? String(hex.prefix(8)) + "…" : hex }

    /// Whether `bytes` are all hex digits, and whether any is an upper-case one.
    private static func scan(_ bytes: some Collection<UInt8>) -> (hex: Bool, upper: Bool) {
        var upper = false
        for byte in bytes {
            switch byte {
            case 0x30...0x39, 0x61...0x66: continue
            case 0x41...0x46: upper = true
            default: return (false, upper)
            }
        }
        return (true, upper)
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        guard let token = DeviceToken(raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(raw)' is not a device token (8 to 100 bytes of hex)"))
        }
        self = token
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
