import Testing

/// Every fuzz suite, one at a time: each keeps a core busy for seconds, and run side by side they starved the
/// rest of the test run of threads, so timing-sensitive tests (an idle timeout of one second) failed now and then.
@Suite("Fuzz", .serialized)
enum Fuzz {}
