/// Runs of bytes a JSON string holds as they are, found eight bytes at a time: what ``JSONObjectSyntax`` steps over
/// when it reads a string and what ``JSONWriter`` copies without escaping. Most of a payload's, a push frame's or a
/// receipt's bytes are such runs, looked at one byte at a time before (`Benchmarks/instructions.sh`: 2,800 instructions
/// a push fewer on the provider path, 6,000 on send to display; docs/speed.md).
enum JSONBytes {
    /// Where the run of plain bytes that starts at `start` ends: the offset of the first byte below 0x20, `"` or `\`
    /// (and, when `asciiOnly`, of the first byte of a UTF-8 sequence), or `bytes.count`.
    @inline(__always)
    static func plainEnd(of bytes: UnsafeRawBufferPointer, from start: Int, asciiOnly: Bool) -> Int {
        var at = start
        if let base = bytes.baseAddress {
            while bytes.count - at >= 8 {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                if mayHoldSpecial(word, asciiOnly: asciiOnly) { break }
                at += 8
            }
        }
        while at < bytes.count, isPlain(bytes[at], asciiOnly: asciiOnly) { at += 1 }
        return at
    }

    @inline(__always)
    static func isPlain(_ byte: UInt8, asciiOnly: Bool) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && (!asciiOnly || byte < 0x80)
    }

    /// Whether any of the eight bytes (little-endian) is not ``isPlain(_:asciiOnly:)``. It may say yes for a plain
    /// byte that follows one that is not (a borrow carried up), never no for one that is not. The usual test of a word
    /// for a zero byte, `(x - 0x01…) & ~x & 0x80…`, for bytes below 0x20, and for `"` and `\` after an XOR makes them
    /// zero. Only a byte below 0x20 borrows, so only one that is itself caught can carry a borrow up; a byte with its
    /// top bit set is never caught by these (`& ~x`), and is caught first when `asciiOnly`.
    @inline(__always)
    static func mayHoldSpecial(_ word: UInt64, asciiOnly: Bool) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, tops: UInt64 = 0x8080_8080_8080_8080
        if asciiOnly, word & tops != 0 { return true }
        let control = (word &- ones &* 0x20) & ~word & tops
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let quote = (quotes &- ones) & ~quotes & tops, backslash = (backslashes &- ones) & ~backslashes & tops
        return control | quote | backslash != 0
    }
}
