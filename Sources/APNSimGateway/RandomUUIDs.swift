import APNSimRules
import Foundation

/// Makes the IDs of every push: the `apns-id` (when the provider sent none) and `apns-unique-id` values of responses,
/// and delivery IDs. Random version-4 UUIDs in Apple's text form (time-ordered version-7 ones for delivery IDs), from
/// a SplitMix64 generator seeded once (per provider connection, per gateway) from the system's random source. These
/// IDs only need to be unique, not secret, and Foundation's `UUID()` opens and reads `/dev/urandom` per ID on Linux,
/// which `Benchmarks/provider.sh` and `Benchmarks/e2e.sh` profiles showed.
struct RandomUUIDs {
    fileprivate var random: SplitMix

    init(seed: UInt64 = .random(in: .min ... .max)) {
        random = SplitMix(seed: seed)
    }

    /// An upper-case UUID, as APNs generates `apns-id` (Apple, "Handling notification responses from APNs").
    mutating func upperCaseUUID() -> String { uuid(digits: Self.upperDigits) }

    /// A lower-case UUID, as APNs writes `apns-unique-id` (Apple, "Handling notification responses from APNs").
    mutating func lowerCaseUUID() -> String { uuid(digits: Self.lowerDigits) }

    private static let upperDigits = Array("0123456789ABCDEF".utf8)
    fileprivate static let lowerDigits = Array("0123456789abcdef".utf8)

    /// The millisecond and counter of the last ``orderedUUID(milliseconds:)``.
    private var lastMilliseconds: UInt64 = 0
    private var counter: UInt64 = 0

    /// An upper-case UUID that sorts after every one made before it by this generator: version 7 (RFC 9562 §5.7),
    /// the Unix time in milliseconds in its first 48 bits, then a 12-bit counter that starts at a random value below
    /// 1,024 each millisecond and counts up within it (RFC 9562 §6.2, method 1; at its end, and when the clock goes
    /// back, the time is carried on from the last ID's), then 62 random bits. Delivery IDs are these: the record's
    /// index on them then grows at its end, where its pages are in the cache, instead of at a random place in a
    /// B-tree of up to 100,000 IDs (docs/speed.md, "Delivery IDs in time order": a few percent of the gateway's time).
    mutating func orderedUUID(milliseconds now: UInt64 = UInt64(max(Date().timeIntervalSince1970 * 1_000, 0))) -> String {
        if now > lastMilliseconds {
            lastMilliseconds = now
            counter = random.next() & 0x3FF
        } else if counter < 0xFFF {
            counter += 1
        } else {
            lastMilliseconds += 1
            counter = random.next() & 0x3FF
        }
        let high = (lastMilliseconds & 0xFFFF_FFFF_FFFF) << 16 | 0x7000 | counter
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return uuid(high: high, low: low, digits: Self.upperDigits)
    }

    private mutating func uuid(digits: [UInt8]) -> String {
        // RFC 9562 §5.4: version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
        let high = (random.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (random.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return uuid(high: high, low: low, digits: digits)
    }

    /// The UUID whose first 64 bits are `high` and last 64 `low`, in Apple's text form with `digits`.
    private func uuid(high: UInt64, low: UInt64, digits: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for (index, nibble) in (0..<32).enumerated() {
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    text[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = nibble < 16 ? high : low
                let shift = UInt64(60 - (nibble % 16) * 4)
                text[at] = digits[Int((word >> shift) & 0xF)]
                at += 1
            }
            return at
        }
    }
}

extension RandomUUIDs {
    /// A random push token of `bytes` bytes, as ActivityKit hands out for each Live Activity (80 bytes today;
    /// Apple says never to rely on the size).
    mutating func token(bytes: Int = 80) -> DeviceToken {
        let digits = Self.lowerDigits
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes * 2)
        var word: UInt64 = 0
        for index in 0..<bytes {
            if index % 8 == 0 { word = random.next() }
            let byte = UInt8(truncatingIfNeeded: word >> UInt64((index % 8) * 8))
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return DeviceToken(String(decoding: hex, as: UTF8.self))!
    }
}

extension RandomUUIDs {
    /// A new broadcast channel ID: 16 random bytes as base64 (24 characters), the shape of the IDs in Apple's examples.
    mutating func channelID() -> String {
        var bytes: [UInt8] = []
        for _ in 0..<2 {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return Data(bytes).base64EncodedString()
    }
}
