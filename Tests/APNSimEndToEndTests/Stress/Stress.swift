import Foundation
import Testing

/// The stress suite: thousands of gateways or connections, loops of a hundred, the fuzzers at full size. It is not
/// part of `swift test`; it runs with
///
/// ```sh
/// APNSIM_STRESS=1 swift test --filter 'Stress|Fuzz'
/// ```
///
/// (the README's contributing section; `.ci/run` runs it after the normal and the busy-machine runs). Its tests run
/// one at a time, each alone with the fuzzers, and no verdict here depends on how fast the machine is: a bound is only
/// a guard against a hang. How fast these things are is measured in `Benchmarks/`.
@Suite("Stress", .serialized, .enabled(if: stressRunIsOn, "the stress suite runs with APNSIM_STRESS=1 (README, Contributing)"),
       .timeLimit(.minutes(30)))
enum Stress {}

/// `APNSIM_STRESS=1` in the environment.
let stressRunIsOn = ProcessInfo.processInfo.environment["APNSIM_STRESS"] == "1"
