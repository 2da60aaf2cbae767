@testable import APNSimDeviceLink
import APNSimRules
import Testing

/// The figures the gateway reads from an extension's run (``ExtensionRun/Figures``), as a device's receipt writes it.
@Suite("Extension runs' figures as a device writes them")
struct RunFiguresAsWrittenTests {
    @Test("Only a run that ran has figures for the metrics and traces, however the device wrote the one that did not")
    func figuresOfRunsThatRan() throws {
        var run = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "attached", durationMs: 12)
        #expect(ExtensionRun.Figures.ofRunThatRan(EncodedJSON(run))?.durationMs == 12)
        run.ran = false
        let written = EncodedJSON<ExtensionRun>(unchecked: String(decoding: DeviceLinkFraming.written(run), as: UTF8.self))
        #expect(written.text.hasPrefix(#"{"ran":false,"#), "as a device writes it")
        #expect(ExtensionRun.Figures.ofRunThatRan(written) == nil)
        #expect(ExtensionRun.Figures.ofRunThatRan(EncodedJSON(unchecked: #"{"outcome":"notLaunched","ran":false}"#)) == nil, "written otherwise, read")
        #expect(ExtensionRun.Figures.ofRunThatRan(EncodedJSON(unchecked: #"{ "ran" : false , "outcome":"notLaunched"}"#)) == nil)
        #expect(ExtensionRun.Figures.ofRunThatRan(EncodedJSON(unchecked: #"{"outcome":"completed","ran":true}"#))?.outcome == "completed")
        #expect(ExtensionRun.Figures.ofRunThatRan(EncodedJSON(unchecked: #"{"ran":true"#)) == nil, "not a run's JSON")
    }
}
