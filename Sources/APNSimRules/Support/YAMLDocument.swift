import Foundation
import Yams

/// A YAML file read into a ``Decodable`` value, where every mistake is one sentence naming the file, the line, the
/// key and what was expected (`sandbox.yaml:14: apps[0].team: expected a string, found a mapping`), never a
/// stack trace; a key the type does not know is a mistake too, so a misspelt `serviceExtention:` is not ignored.
public enum YAMLDocument {
    /// Decodes `text` (read from `path`) as `T`.
    /// - Parameter vocabulary: every key the format has anywhere, to suggest the one meant by a misspelt key.
    public static func decode<T: Codable>(_ type: T.Type, from text: String, path: String,
                                          vocabulary: Set<String> = []) throws(YAMLFileError) -> T {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw YAMLFileError(file: path, line: 1, key: nil, "the file is empty; expected a mapping")
            }
            root = node
        } catch let error as YAMLFileError {
            throw error
        } catch let error as YamlError {
            throw syntaxError(error, path: path)
        } catch {
            throw YAMLFileError(file: path, line: nil, key: nil, "not valid YAML (\(error))")
        }
        let value: T
        do {
            value = try YAMLDecoder().decode(T.self, from: text)
        } catch let error as DecodingError {
            throw describe(error, root: root, path: path)
        } catch {
            throw YAMLFileError(file: path, line: nil, key: nil, "not valid YAML (\(error))")
        }
        if let unknown = unknownKey(in: root, decoded: value) {
            let name = String(unknown.key.split(separator: ".").last ?? "")
            let meant = unknown.known.union(vocabulary).min { distance(name, $0) < distance(name, $1) }
            let suggestion = meant.flatMap { distance(name, $0) <= max(2, name.count / 3) ? "; did you mean \($0)?" : nil }
            throw YAMLFileError(file: path, line: unknown.line, key: unknown.key,
                                "not a key this place takes\(suggestion ?? "")")
        }
        return value
    }

    /// Edit distance between two keys, for suggesting the one meant.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    private static func syntaxError(_ error: YamlError, path: String) -> YAMLFileError {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _), .composer(_, let problem, let mark, _):
            return YAMLFileError(file: path, line: mark.line, key: nil, "not valid YAML: \(problem) (column \(mark.column))")
        default:
            return YAMLFileError(file: path, line: nil, key: nil, "not valid YAML: \(error)")
        }
    }

    private static func describe(_ error: DecodingError, root: Node, path: String) -> YAMLFileError {
        switch error {
        case .keyNotFound(let key, let context):
            let at = context.codingPath
            return YAMLFileError(file: path, line: line(of: at, in: root), key: keyPath(at + [key]), "missing; this key is required")
        case .typeMismatch(let type, let context):
            return YAMLFileError(file: path, line: line(of: context.codingPath, in: root), key: keyPath(context.codingPath),
                                 "expected \(describe(type)), found \(found(at: context.codingPath, in: root))")
        case .valueNotFound(let type, let context):
            return YAMLFileError(file: path, line: line(of: context.codingPath, in: root), key: keyPath(context.codingPath),
                                 "expected \(describe(type)), found nothing")
        case .dataCorrupted(let context):
            return YAMLFileError(file: path, line: line(of: context.codingPath, in: root), key: keyPath(context.codingPath),
                                 context.debugDescription)
        @unknown default:
            return YAMLFileError(file: path, line: nil, key: nil, "\(error)")
        }
    }

    /// `apps[0].serviceExtension.kind`.
    static func keyPath(_ path: [any CodingKey]) -> String? {
        guard !path.isEmpty else { return nil }
        var text = ""
        for key in path {
            if let index = key.intValue { text += "[\(index)]" } else { text += text.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type, is Int64.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasSuffix("Scalar") { return "a single value" }
            if name.hasPrefix("Array") { return "a list" }
            if name.hasPrefix("Dictionary") { return "a mapping" }
            return "a \(name)"
        }
    }

    private static func found(at path: [any CodingKey], in root: Node) -> String {
        switch node(at: path, in: root) {
        case .mapping?: return "a mapping"
        case .sequence?: return "a list"
        case .scalar(let scalar)?: return "\"\(scalar.string)\""
        case nil: return "nothing"
        }
    }

    /// The node `path` leads to, or the deepest one on the way.
    static func node(at path: [any CodingKey], in root: Node) -> Node? {
        var current = root
        for key in path {
            if let index = key.intValue, let sequence = current.sequence, index < sequence.count {
                current = sequence[index]
            } else if let mapping = current.mapping, let value = mapping[key.stringValue] {
                current = value
            } else {
                return current
            }
        }
        return current
    }

    /// The line of the node `path` leads to (or the deepest one on the way).
    static func line(of path: [any CodingKey], in root: Node) -> Int? {
        node(at: path, in: root)?.mark?.line
    }

    /// The first key in `source` that decoding dropped: encoding the decoded value back gives every key the type
    /// knows, so a key in the file and not in that is one the type does not know. (Encoded as JSON: the keys are
    /// all that is compared, and JSONEncoder costs a fraction of YAMLEncoder plus a second parse.)
    private static func unknownKey<T: Encodable>(in source: Node, decoded: T) -> (key: String, line: Int?, known: Set<String>)? {
        guard let data = try? JSONEncoder().encode(decoded), let encoded = try? JSONSerialization.jsonObject(with: data) else {
            return nil
        }
        return unknownKey(source, encoded, path: "")
    }

    private static func unknownKey(_ source: Node, _ encoded: Any, path: String) -> (key: String, line: Int?, known: Set<String>)? {
        if let mapping = source.mapping, let known = encoded as? [String: Any] {
            for (key, value) in mapping {
                guard let name = key.string else { continue }
                let here = path.isEmpty ? name : "\(path).\(name)"
                guard let match = known[name] else {
                    if case .scalar(let scalar) = value, scalar.string == "" || scalar.string == "~" || scalar.string == "null" { continue }
                    return (here, key.mark?.line, Set(known.keys))
                }
                if let found = unknownKey(value, match, path: here) { return found }
            }
        } else if let sequence = source.sequence, let known = encoded as? [Any], sequence.count == known.count {
            for (index, (item, match)) in zip(sequence, known).enumerated() {
                if let found = unknownKey(item, match, path: "\(path)[\(index)]") { return found }
            }
        }
        return nil
    }
}

/// A mistake in a YAML file: `FILE:LINE: KEY: what was expected`.
public struct YAMLFileError: Error, CustomStringConvertible, Sendable, Hashable {
    public var file: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String, line: Int?, key: String?, _ message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(key.map { "\($0): " } ?? "")\(message)"
    }
}
