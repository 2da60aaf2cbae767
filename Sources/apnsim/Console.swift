import Foundation

/// Writes to standard output at once, so a banner shows even when stdout is a pipe or a file.
enum Console {
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
