import Testing

/// Every fuzz suite, one at a time. In `swift test` each decoder gets 2,000 mutated inputs, a second or so of one
/// core; in the stress suite (`APNSIM_STRESS=1 swift test --filter 'Stress|Fuzz'`) 100,000, which keep a core busy for
/// a minute: run beside the end-to-end tests, that starved them of the cooperative pool's threads, and their waits ran
/// out (an install answered 504, an HTTP client deadline passed).
@Suite("Fuzz", .serialized)
enum Fuzz {}
