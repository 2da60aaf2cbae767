/// SplitMix64: small, fast, and the same sequence for the same seed on every platform, so whatever draws from it
/// (injected latencies, the fuzz tests' mutations) is the same every run; seeded at random, the gateway's response
/// IDs. Inlinable: it is on the push path.
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64

    @inlinable
    public init(seed: UInt64) { state = seed }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
