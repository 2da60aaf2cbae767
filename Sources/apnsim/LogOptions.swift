import ArgumentParser
import Logging

/// `--log-level` and `--log-format`, which the commands that run services share (`up`, `gateway`, `device`, `media`).
/// Their logs go to standard output, where containers' log collectors read; `json` makes each record, and each line
/// the command prints, one JSON object per line.
struct LogOptions: ParsableArguments {
    @Option(name: .customLong("log-level"), help: "How much to log. Environment: APNSIM_LOG_LEVEL.")
    var level: Logger.Level = EnvironmentVariables.logLevel(otherwise: .warning)

    @Option(name: .customLong("log-format"), help: "text, or json for log collectors (one JSON object per line). Environment: APNSIM_LOG_FORMAT.")
    var format: ConsoleLogHandler.Format = EnvironmentVariables.choice(
        "APNSIM_LOG_FORMAT", option: "--log-format", ConsoleLogHandler.Format.allCases.map { ($0.rawValue, $0) }, otherwise: .text)

    /// `apnsim up`'s devices log to standard error, which `up` shows among its own logs; what they print is dropped.
    @Flag(name: .customLong("logs-to-stderr"), help: .hidden)
    var toStandardError = false

    /// The logger a command's services log with, at the chosen level.
    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    /// Sends every log record, and what ``Console/say(_:)`` prints, where and as these options say; once, before the
    /// command runs.
    func bootstrap() {
        let format = format, stream: ConsoleLogHandler.Stream = toStandardError ? .standardError : .standardOutput
        Console.format = format
        let provider = Telemetry.logMetadata
        LoggingSystem.bootstrap({ label, provider in ConsoleLogHandler(label: label, format: format, stream: stream, metadataProvider: provider) },
                                metadataProvider: provider)
    }

    /// The options for a device process `apnsim up` starts: the same level and format.
    var forDeviceProcesses: [String] {
        ["--log-level", level.rawValue, "--log-format", format.rawValue, "--logs-to-stderr"]
    }
}

/// `--log-level`: one of swift-log's levels, spelt as swift-log spells them; anything else is a usage error that
/// lists them (before, an unknown level quietly meant the default).
extension Logger.Level: @retroactive ExpressibleByArgument {}

/// A command whose services log (its logs are set up by ``LogOptions/bootstrap()`` before it runs).
protocol LoggingCommand {
    var log: LogOptions { get }
}
