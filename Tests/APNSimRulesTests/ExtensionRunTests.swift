@testable import APNSimRules
import Foundation
import Testing

@Suite("The extension's record")
struct ExtensionRunTests {
    @Test("log is in the record only when the extension logged something, and reads back")
    func log() throws {
        let quiet = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "attached")
        let quietJSON = String(decoding: try JSONEncoder().encode(quiet), as: UTF8.self)
        #expect(!quietJSON.contains("\"log\""))
        let chatty = ExtensionRun(ran: true, kind: .swift, outcome: .completed, diagnostic: "attached", log: ["didReceive", "attached 398 bytes"])
        let read = try JSONDecoder().decode(ExtensionRun.self, from: try JSONEncoder().encode(chatty))
        #expect(read == chatty)
        #expect(try JSONDecoder().decode(ExtensionRun.self, from: Data(quietJSON.utf8)).log.isEmpty)
    }

    @Test("The figures the metrics read from a run's JSON text are the run's own, downloads included")
    func figures() throws {
        var run = ExtensionRun(ran: true, kind: .braze, outcome: .expired, diagnostic: "attached", durationMs: 1234)
        run.downloads = [MediaDownload(url: "http://media/a.jpg", status: 200, bytes: 398, durationMs: 9),
                         MediaDownload(url: "http://media/b.jpg", status: nil, bytes: 0, durationMs: 30, error: "refused")]
        let figures = try #require(ExtensionRun.Figures(EncodedJSON(run)))
        #expect(figures.ran && figures.kind == "braze" && figures.outcome == "expired" && figures.durationMs == 1234)
        #expect(figures.downloads.map(\.status) == [200, nil] && figures.downloads.map(\.bytes) == [398, 0])
        #expect(figures.downloads.map(\.durationMs) == [9, 30] && figures.downloads.first?.url == "http://media/a.jpg")

        let skipped = try #require(ExtensionRun.Figures(EncodedJSON(ExtensionRun(ran: false, kind: .braze, outcome: .notLaunched,
                                                                                  diagnostic: "no mutable-content"))))
        #expect(!skipped.ran && skipped.outcome == "notLaunched" && skipped.downloads.isEmpty)
        #expect(ExtensionRun.Figures(EncodedJSON(unchecked: #"{"ran":"yes"}"#)) == nil, "a run's text that is not one has no figures")
        #expect(ExtensionRun.Figures(EncodedJSON(unchecked: "[1]")) == nil)
        #expect(ExtensionRun.Figures(EncodedJSON(unchecked: #"{"ran":true,"outcome":"completed"} {}"#)) == nil, "text after the object")
        #expect(ExtensionRun.Figures(EncodedJSON(unchecked: #"{"ran":true,"outcome":"completed","log":["a",]}"#)) == nil,
                "a member passed over is still checked")
        let twice = try #require(ExtensionRun.Figures(EncodedJSON(unchecked:
            #"{"ran":true,"outcome":"completed","durationMs":5,"durationMs":7,"downloads":[1,{"bytes":3}],"kind":"sailthru"}"#)))
        #expect(twice.durationMs == 5 && twice.kind == "sailthru", "a key written twice counts as written first")
        #expect(twice.downloads.map(\.bytes) == [3] && twice.downloads.first?.status == nil, "what is not a download is passed over")
        let download = try #require(ExtensionRun.Figures(EncodedJSON(unchecked:
            #"{"ran":true,"outcome":"completed","downloads":[{"bytes":1,"bytes":2,"url":"u","status":404,"kind":"x","durationMs":6}]}"#)))
        #expect(download.downloads == [MediaDownload(url: "u", status: 404, bytes: 2, durationMs: 6)],
                "a download's key written twice counts as written last; a run's keys in a download are passed over")
    }
}
