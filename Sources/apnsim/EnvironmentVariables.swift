import Foundation
import Logging
import Synchronization

/// Options from `APNSIM_…` environment variables, as containers, compose files and Kubernetes pass them.
///
/// Each variable is the default of one option, so an option given on the command line wins, and a command reads
/// only the variables of its own options (`--help` names each one). A value that is not what its option takes is
/// an error naming the variable, reported once parsing is done (``problem(ignoring:)``), unless the option was given
/// as well.
enum EnvironmentVariables {
    /// What was wrong with a variable a command read, and the option it stands for.
    struct Problem: Sendable {
        var variable: String
        var option: String
        var sentence: String
    }

    private static let problems = Mutex<[Problem]>([])

    /// The variable's value; an empty one counts as unset, as shells and compose files write an unset one.
    static func value(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A text option's default: the variable's value, else `otherwise`.
    static func text(_ name: String, otherwise: String) -> String {
        value(name) ?? otherwise
    }

    /// A port's default (0 to 65535).
    static func port(_ name: String, option: String, otherwise: Int) -> Int {
        whole(name, option: option, in: 0...65535, what: "a port, 0 to 65535", otherwise: otherwise)
    }

    /// A port whose default is decided later (`nil`): the variable's port, if it is set.
    static func optionalPort(_ name: String, option: String) -> Int? {
        value(name) == nil ? nil : port(name, option: option, otherwise: 0)
    }

    /// A whole number's default, in `range`.
    static func whole(_ name: String, option: String, in range: ClosedRange<Int>, what: String, otherwise: Int) -> Int {
        guard let text = value(name) else { return otherwise }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            report(name, option: option, "\(name) is \(quoted(text)); it takes \(what) (\(option))")
            return otherwise
        }
        return number
    }

    /// One of a fixed set of words (a log level, a log format).
    static func choice<T>(_ name: String, option: String, _ choices: [(String, T)], otherwise: T) -> T {
        guard let text = value(name) else { return otherwise }
        guard let chosen = choices.first(where: { $0.0 == text.lowercased() }) else {
            report(name, option: option, "\(name) is \(quoted(text)); it takes one of \(choices.map(\.0).joined(separator: ", ")) (\(option))")
            return otherwise
        }
        return chosen.1
    }

    /// `--log-level`'s default.
    static func logLevel(otherwise: Logger.Level) -> Logger.Level {
        choice("APNSIM_LOG_LEVEL", option: "--log-level", Logger.Level.allCases.map { ($0.rawValue, $0) }, otherwise: otherwise)
    }

    static func report(_ name: String, option: String, _ sentence: String) {
        problems.withLock { $0.append(Problem(variable: name, option: option, sentence: sentence)) }
    }

    /// The first problem with a variable the parsed command read, unless the command line gave its option (which
    /// wins, so the variable does not matter).
    static func problem(ignoring arguments: [String]) -> Problem? {
        problems.withLock { $0 }.first { problem in
            !arguments.contains { $0 == problem.option || $0.hasPrefix(problem.option + "=") }
        }
    }

    private static func quoted(_ text: String) -> String {
        "'" + String(text.prefix(80)) + "'"
    }
}
