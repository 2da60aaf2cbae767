import Foundation

/// Writes to standard output at once, so a banner shows even when stdout is a pipe or a file.
enum Console {
    static func say(_ text: String) {
        // A reader that has gone (`apnsim … | head -1`, an `apnsim up` that was killed) is no reason to stop:
        // `write(contentsOf:)` reports it as an error, where `write(_:)` would trap.
        try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
    }
}

extension Console {
    /// Writes one line to standard error: a command's error sentence, without usage text after it.
    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
    }
}
