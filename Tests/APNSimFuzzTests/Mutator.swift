import APNSimRules
import Foundation

/// Seeded, reproducible mutation of inputs, for fuzz tests that must give the same inputs on every run.
///
/// Each mutant is a corpus entry with one to four edits: a byte flipped, a byte replaced, a span deleted or
/// repeated, the input cut short, a span of another entry spliced in, an "interesting" token inserted, or a
/// number in the input replaced by one (the edits that find traps in numeric conversions).
struct Mutator {
    private var random: SplitMix
    let corpus: [[UInt8]]

    /// Tokens that break careless decoders: numbers past every integer and floating-point range, spellings of
    /// infinity and NaN, JSON and YAML punctuation, escapes, surrogates, control characters, deep nesting.
    static let interesting: [[UInt8]] = [
        "1e19", "-1e300", "1e400", "-1e400", "NaN", "nan", "Infinity", "-Infinity", "inf", "-inf", "\"inf\"", "\"nan\"",
        "-0", "0", "-1", "0.5", "1.7976931348623157e308", "4.9e-324", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "99999999999999999999", "2147483648", "4294967296", "1e15",
        "\"", "\\", "\\u0000", "\\uD800", "\\uDC00", "\u{0}", "\u{7F}", "\r\n", "\t", "{", "}", "[", "]", ":", ",",
        "null", "true", "false", "{}", "[]", "\"\"", String(repeating: "[", count: 600), String(repeating: "x", count: 5000),
        "é", "😀", "\u{FEFF}", "%00", "..", "/", "*", "&a", "!!binary", "- ", ": ", "---", "~", "0x7fffffff", "1_000",
    ].map { Array($0.utf8) }

    init(seed: UInt64, corpus: [[UInt8]]) {
        precondition(!corpus.isEmpty)
        self.random = SplitMix(seed: seed)
        self.corpus = corpus
    }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// A corpus entry, mutated.
    mutating func mutant() -> [UInt8] {
        mutate(corpus[below(corpus.count)])
    }

    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0...below(4) { edit(&bytes) }
        return bytes
    }

    private mutating func edit(_ bytes: inout [UInt8]) {
        let at = below(bytes.count + 1)
        switch below(9) {
        case 0 where !bytes.isEmpty:
            bytes[min(at, bytes.count - 1)] ^= UInt8(1 << below(8))
        case 1 where !bytes.isEmpty:
            bytes[min(at, bytes.count - 1)] = UInt8(truncatingIfNeeded: next())
        case 2:
            let length = min(below(16) + 1, bytes.count - at)
            if length > 0 { bytes.removeSubrange(at..<(at + length)) }
        case 3:
            let length = min(below(32) + 1, bytes.count - at)
            if length > 0 { bytes.insert(contentsOf: bytes[at..<(at + length)], at: at) }
        case 4:
            bytes.removeSubrange(at...)
        case 5:
            let other = corpus[below(corpus.count)]
            let start = below(other.count + 1)
            let length = min(below(64), other.count - start)
            bytes.insert(contentsOf: other[start..<(start + length)], at: at)
        case 6, 7:
            replaceNumber(&bytes)
        default:
            bytes.insert(contentsOf: Self.interesting[below(Self.interesting.count)], at: at)
        }
    }

    /// Replaces one run of digits (with its sign, point and exponent) by an interesting token.
    private mutating func replaceNumber(_ bytes: inout [UInt8]) {
        let isNumberByte: (UInt8) -> Bool = { (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E || $0 == 0x65 || $0 == 0x2B }
        let starts = bytes.indices.filter { (0x30...0x39).contains(bytes[$0]) && ($0 == 0 || !isNumberByte(bytes[$0 - 1])) }
        guard !starts.isEmpty else {
            bytes.insert(contentsOf: Self.interesting[below(Self.interesting.count)], at: below(bytes.count + 1))
            return
        }
        let start = starts[below(starts.count)]
        var end = start
        while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
        bytes.replaceSubrange(start..<end, with: Self.interesting[below(Self.interesting.count)])
    }
}

/// What one fuzz run saw, printed so CI shows how many inputs each decoder was given.
struct FuzzTally: CustomStringConvertible {
    let name: String
    var tried = 0
    var accepted = 0
    var rejected = 0
    /// Inputs that end inside a frame, so the reader waits for more bytes (a stream decoder only).
    var incomplete = 0

    var description: String {
        let waiting = incomplete > 0 ? ", \(incomplete) incomplete (waiting for more bytes)" : ""
        return "fuzz \(name): \(tried) mutated inputs, \(accepted) accepted, \(rejected) refused with a sentence\(waiting), no trap"
    }
}

/// How many mutated inputs each decoder gets: 2,000 in `swift test`, a quick look at every decoder on every run, and
/// 100,000 in the stress suite (`APNSIM_STRESS=1`, README, Contributing). The seed is fixed, so the first 2,000 are the
/// same inputs either way.
let fuzzIterations = ProcessInfo.processInfo.environment["APNSIM_STRESS"] == "1" ? 100_000 : 2_000

/// A world file costs about 2 ms to parse (YAML, then the world's checks), forty times a push's validation: 100,000
/// of them took 198 s, the stress suite's whole length, with the other decoders waiting behind them on the same core.
/// 25,000 in the stress suite; the same 2,000 in `swift test`.
let worldFileFuzzIterations = ProcessInfo.processInfo.environment["APNSIM_STRESS"] == "1" ? 25_000 : 2_000
