import APNSimExtensions
import APNSimTestSupport
import Foundation
import Testing

/// An apnsim installed away from its checkout (a binary copied to a server or into an image) builds a team's Swift
/// extension from the UserNotifications mirror built into it.
@Suite("An installed apnsim", .endToEnd)
struct InstalledBinaryTests {
    @Test("A binary copied alone to another folder builds and runs a team's Swift extension", .hangGuard)
    func copiedBinaryBuildsExtensions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-installed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = folder.appendingPathComponent("bin")
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("apnsim")
        try FileManager.default.copyItem(at: try ApnsimProcess.executable, to: installed)
        let payload = folder.appendingPathComponent("push.json")
        try Data(#"{"aps":{"alert":{"title":"Sale","body":"Pick one"},"mutable-content":1},"message_id":"m1","buttons":[{"id":"SHOP","title":"Shop"}]}"#.utf8)
            .write(to: payload)
        let source = repositoryRoot.appendingPathComponent("Scenarios/extensions/swift-categories/NotificationService.swift").path
        let (status, printed) = try await ChildProcess.run(["/bin/sh", "-c", "cd \"$1\" && exec \"$2\" extension run \"$3\" --payload \"$4\"", "sh",
                                                            folder.path, installed.path, source, payload.path],
                                                           environment: ["TMPDIR": temporary.path])
        #expect(status == .exited(0), "\(printed)")
        #expect(printed.contains("buttons     Shop"), "\(printed)")
        // The mirror it compiled came out of the binary, into the build cache of its own temporary folder.
        let cache = temporary.appendingPathComponent("apnsim-extension-builds")
        let mirrors = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasPrefix("mirror-") }
        #expect(mirrors.count == 1, "\(mirrors)")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(mirrors.first ?? "").appendingPathComponent(
            "Sources/APNSimUserNotifications/UNNotificationServiceExtension.swift").path))
    }
}
