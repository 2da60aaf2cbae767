import APNSimCore
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
}
