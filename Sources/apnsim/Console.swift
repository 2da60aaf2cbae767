import Foundation
import Synchronization

/// Writes to standard output at once, so a banner shows even when stdout is a pipe or a file.
enum Console {
    private static let chosenFormat = Mutex(ConsoleLogHandler.Format.text)

    /// How lines are printed: as they are, or (`--log-format json`) each as a JSON record, as the logs are.
    static var format: ConsoleLogHandler.Format {
        get { chosenFormat.withLock { $0 } }
        set { chosenFormat.withLock { $0 = newValue } }
    }

    static func say(_ text: String) {
        // A reader that has gone (`apnsim … | head -1`, an `apnsim up` that was killed) is no reason to stop:
        // `write(contentsOf:)` reports it as an error, where `write(_:)` would trap.
        switch format {
        case .text:
            ConsoleLogHandler.write(text, to: .standardOutput)
        case .json:
            ConsoleLogHandler.write(ConsoleLogHandler.jsonLine(["time": Date().formatted(ConsoleLogHandler.timeStyle), "level": "notice",
                                                                "label": "apnsim", "message": text]), to: .standardOutput)
        }
    }
}

extension Console {
    /// Writes one line to standard error: a command's error sentence, without usage text after it.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }
}
