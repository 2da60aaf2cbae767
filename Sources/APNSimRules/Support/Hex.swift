/// Bytes as lower-case hex, two digits each: a digest's form in the record (an attachment's SHA-256) and in names of
/// folders. `String(format: "%02x")` per byte went through CoreFoundation's formatter, 700 instructions a byte, and
/// every rich push hashes its attachment (`Benchmarks/instructions.sh`, the rich path).
public enum Hex {
    public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var at = 0
            for byte in bytes {
                buffer[at] = digits[Int(byte >> 4)]
                buffer[at + 1] = digits[Int(byte & 0xF)]
                at += 2
            }
            return at
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
