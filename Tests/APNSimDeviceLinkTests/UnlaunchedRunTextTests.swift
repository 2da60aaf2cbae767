@testable import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// A receipt's extension run that never launched is written once and its text kept for the next one like it: what
/// is kept must be what writing would give, and a run that differs in anything must get its own text.
@Suite("Unlaunched runs' text")
struct UnlaunchedRunTextTests {
    static func notLaunched(_ why: String, kind: ExtensionKind = .braze) -> ExtensionRun {
        ExtensionRun(ran: false, kind: kind, outcome: .notLaunched, diagnostic: why)
    }

    @Test("The kept text is the written text, and any difference is written anew")
    func keptOnlyForTheSameRun() throws {
        let first = Self.notLaunched("the push has no mutable-content")
        #expect(DeviceLinkFraming.writtenOnce(first) == DeviceLinkFraming.written(first))
        #expect(DeviceLinkFraming.writtenOnce(first) == DeviceLinkFraming.written(first))
        for other in [Self.notLaunched("alerts are off for the app"), Self.notLaunched("the push has no mutable-content", kind: .sailthru)] {
            #expect(DeviceLinkFraming.writtenOnce(other) == DeviceLinkFraming.written(other))
            #expect(DeviceLinkFraming.writtenOnce(other) != DeviceLinkFraming.written(first))
        }
        var ran = first
        ran.outcome = .completed
        ran.ran = true
        #expect(DeviceLinkFraming.writtenOnce(ran) == DeviceLinkFraming.written(ran))
        let decoded = try JSONDecoder().decode(ExtensionRun.self, from: Data(DeviceLinkFraming.writtenOnce(first)))
        #expect(decoded == first)
    }
}
