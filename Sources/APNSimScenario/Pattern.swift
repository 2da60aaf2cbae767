import APNSimRules
import Foundation

/// How an `expect` value matches a record: a mapping matches the keys it names (others may be anything), a list
/// matches item by item and must have as many, `{contains: TEXT}` matches a string holding TEXT, `{matches: REGEX}`
/// a string the regular expression matches whole, `{atLeast: N}` / `{atMost: N}` a number in that bound, `null` a
/// missing value, and numbers, strings and Booleans match
/// by value.
enum Pattern {
    /// Where `actual` differs from `expected`, one sentence each, naming the key path under `path`.
    static func mismatches(_ expected: JSONValue, _ actual: JSONValue?, at path: String) -> [String] {
        switch expected {
        case .object(let object) where object.count == 1 && object["contains"]?.string != nil:
            let text = object["contains"]!.string!
            return actual?.string?.contains(text) == true ? [] : ["\(path): expected text containing \"\(text)\", got \(show(actual))"]
        case .object(let object) where object.count == 1 && (object["atLeast"]?.number != nil || object["atMost"]?.number != nil):
            guard let value = actual?.number else { return ["\(path): expected a number, got \(show(actual))"] }
            if let least = object["atLeast"]?.number, value < least { return ["\(path): expected at least \(show(.number(least))), got \(show(actual))"] }
            if let most = object["atMost"]?.number, value > most { return ["\(path): expected at most \(show(.number(most))), got \(show(actual))"] }
            return []
        case .object(let object) where object.count == 1 && object["matches"]?.string != nil:
            let expression = object["matches"]!.string!
            guard let regex = try? Regex(expression) else { return ["\(path): {matches: \(expression)} is not a regular expression"] }
            return (try? actual?.string.map { try regex.wholeMatch(in: $0) != nil }) == true
                ? [] : ["\(path): expected text matching \(expression), got \(show(actual))"]
        case .object(let object):
            guard case .object(let record)? = actual else { return ["\(path): expected a mapping, got \(show(actual))"] }
            return object.keys.sorted().flatMap { mismatches(object[$0]!, record[$0], at: "\(path).\($0)") }
        case .array(let items):
            guard case .array(let got)? = actual else {
                return items.isEmpty && (actual == nil || actual == .null) ? [] : ["\(path): expected a list, got \(show(actual))"]
            }
            guard items.count == got.count else { return ["\(path): expected \(items.count) items, got \(got.count): \(show(actual))"] }
            return zip(items, got).enumerated().flatMap { mismatches($1.0, $1.1, at: "\(path)[\($0)]") }
        case .null:
            return actual == nil || actual == .null ? [] : ["\(path): expected nothing, got \(show(actual))"]
        case .string(let text):
            // YAML reads `expect: {status: 200}` as a number; a record's text of a number still matches it written as text.
            if case .number(let number)? = actual, Double(text) == number { return [] }
            return actual?.string == text ? [] : ["\(path): expected \(text), got \(show(actual))"]
        default:
            if case .string(let text)? = actual, case .number(let number) = expected, Double(text) == number { return [] }
            return actual == expected ? [] : ["\(path): expected \(show(expected)), got \(show(actual))"]
        }
    }

    /// A value as a short JSON text for a report.
    static func show(_ value: JSONValue?) -> String {
        guard let text = value?.jsonText else { return "nothing" }
        return text.count > 300 ? String(text.prefix(300)) + "…" : text
    }

    /// `value` with `${media}` in its strings replaced by the media server's `…/media` URL.
    static func substituting(_ value: JSONValue, media: String?) -> JSONValue {
        guard let media else { return value }
        switch value {
        case .string(let text): return .string(text.replacingOccurrences(of: "${media}", with: media))
        case .array(let items): return .array(items.map { substituting($0, media: media) })
        case .object(let object): return .object(object.mapValues { substituting($0, media: media) })
        default: return value
        }
    }
}
