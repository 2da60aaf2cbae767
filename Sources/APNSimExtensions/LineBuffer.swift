extension Array where Element == UInt8 {
    /// Adds `bytes` read from a child process and takes out the whole lines they complete, without their newlines;
    /// the rest stays for the next read.
    mutating func takeLines(adding bytes: [UInt8]) -> [[UInt8]] {
        self += bytes
        var lines: [[UInt8]] = []
        while let newline = firstIndex(of: 0x0A) {
            lines.append(Array(self[..<newline]))
            removeSubrange(...newline)
        }
        return lines
    }
}
