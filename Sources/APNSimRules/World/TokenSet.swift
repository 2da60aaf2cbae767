/// Tokens a world declares by count and seed rather than one by one: a load test's token set (a million devices a
/// campaign goes to, none of them simulated). The same count, seed and size give the same tokens on every machine
/// (``SplitMix``), so the provider that sends to them makes the same list (`apnsim tokens`).
public struct TokenSet: Sendable, Hashable, Codable {
    public var count: Int
    public var seed: UInt64
    public var bundleID: String
    public var environment: APNsEnvironment
    /// Bytes in each token; `nil`: 32, as the tokens of most devices today.
    public var bytes: Int?

    /// The most tokens one set declares: a million cost the gateway about 290 MiB and load in under 2 s
    /// (docs/speed.md); a larger load test declares several sets.
    public static let mostTokens = 1_000_000

    public init(count: Int, seed: UInt64, bundleID: String, environment: APNsEnvironment, bytes: Int? = nil) {
        self.count = count
        self.seed = seed
        self.bundleID = bundleID
        self.environment = environment
        self.bytes = bytes
    }

    /// What is wrong with the set in `world` (its app must be declared there), in a sentence; `nil` when nothing is.
    /// Checked before a token of it is made.
    public func problem(in world: World) -> String? {
        if let problem { return problem }
        if world.apps[bundleID] == nil { return "a token set names app \(bundleID), which is not declared under apps" }
        return nil
    }

    /// What is wrong with the set itself, in a sentence; `nil` when nothing is.
    public var problem: String? {
        if !(1...Self.mostTokens).contains(count) { return "a token set has count \(count); it takes 1 to \(Self.mostTokens)" }
        if let bytes, !DeviceToken.byteCountRange.contains(bytes) {
            return "a token set has bytes \(bytes); a token is \(DeviceToken.byteCountRange.lowerBound) to \(DeviceToken.byteCountRange.upperBound) bytes"
        }
        return nil
    }

    /// Each token of the set, in order, as `body` takes it (a million need not be held as an array first).
    public func forEachToken(_ body: (DeviceToken) -> Void) {
        var random = SplitMix(seed: seed)
        let size = bytes ?? 32
        let digits = Array("0123456789abcdef".utf8)
        var hex = [UInt8](repeating: 0, count: size * 2)
        for _ in 0..<count {
            var word = random.next(), left = 8
            for index in 0..<size {
                if left == 0 { (word, left) = (random.next(), 8) }
                let byte = UInt8(truncatingIfNeeded: word)
                word >>= 8
                left -= 1
                hex[index * 2] = digits[Int(byte >> 4)]
                hex[index * 2 + 1] = digits[Int(byte & 0xF)]
            }
            body(DeviceToken(verifiedHex: String(decoding: hex, as: UTF8.self)))
        }
    }

    /// Every token of the set, in order.
    public var tokens: [DeviceToken] {
        var all: [DeviceToken] = []
        all.reserveCapacity(count)
        forEachToken { all.append($0) }
        return all
    }
}

extension World {
    /// Adds `set`'s tokens, active, to the world's tokens, and the set to those it declares.
    public mutating func add(_ set: TokenSet) {
        tokenSets.append(set)
        set.forEachToken { token in
            tokens[token] = TokenRecord(token: token, bundleID: set.bundleID, environment: set.environment)
        }
    }
}
