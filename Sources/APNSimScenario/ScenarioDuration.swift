import APNSimRules
import Foundation

/// A length of time as scenarios write it: `500ms`, `2s`, `61m`, `1h`, `1d`, or a plain number of seconds.
public struct ScenarioDuration: Codable, Sendable, Hashable, CustomStringConvertible {
    public var duration: Duration
    public var description: String

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        guard let unit = units.first(where: { trimmed.hasSuffix($0.suffix) && Double(trimmed.dropLast($0.suffix.count)) != nil })
                ?? (Double(trimmed) != nil ? ("", 1) : nil),
              let number = Double(trimmed.dropLast(unit.suffix.count)), number.isFinite, number >= 0, number * unit.seconds < 1e9
        else { return nil }
        duration = .milliseconds(Int64((number * unit.seconds * 1000).rounded()))
        description = trimmed
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let seconds = try? container.decode(Double.self) {
            text = String(seconds)
        } else {
            text = try container.decode(String.self)
        }
        guard let parsed = ScenarioDuration(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected a length of time such as 500ms, 2s, 61m or 1h, found \"\(text)\""))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Seconds, for reports.
    public var seconds: Double { duration.inSeconds }
}
