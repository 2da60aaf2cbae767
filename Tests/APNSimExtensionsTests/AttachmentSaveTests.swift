import APNSimRules
import APNSimExtensions
import Foundation
import Testing

/// Where a built-in extension's download is saved: the device's attachments folder, made when it is missing (at the
/// first attachment, or again after it was removed), and a sentence naming the file when it cannot be written.
@Suite("Attachments: saving a download")
struct AttachmentSaveTests {
    @Test("The folder is made when missing, again after it is removed, and a file that cannot be written is named")
    func savesIntoItsFolder() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("device/attachments")
        let downloader = AttachmentDownloader(directory: folder)
        let bytes = Array("not really a jpeg".utf8)

        let first = try await downloader.save(bytes, as: "delivery-1", fileExtension: "jpg", identifier: "delivery-1", url: "http://media/a.jpg")
        #expect(first.file == folder.path + "/delivery-1.jpg")
        #expect(FileManager.default.contents(atPath: folder.path + "/delivery-1.jpg") == Data(bytes))
        #expect(first.size == bytes.count && first.sha256 == NotificationContent.Attachment.sha256(of: bytes))

        try FileManager.default.removeItem(at: root)
        let second = try await downloader.save(bytes, as: "delivery-2", fileExtension: "", identifier: "delivery-2", url: "http://media/a")
        #expect(second.file == folder.path + "/delivery-2", "no extension: the name alone")
        #expect(FileManager.default.fileExists(atPath: folder.path + "/delivery-2"))

        // A file where the device's folder should be: neither the folder nor the attachment can be made.
        try FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("in the way".utf8).write(to: root.appendingPathComponent("device"))
        do {
            _ = try await downloader.save(bytes, as: "delivery-3", fileExtension: "jpg", identifier: "delivery-3", url: "http://media/a.jpg")
            Issue.record("saved under a file")
        } catch {
            #expect(error.description.hasPrefix("cannot save the attachment at \(folder.path)/delivery-3.jpg: "), "\(error)")
        }
    }

    @Test("Files are written on the extension's thread until one write is slow, then on the pool for a second")
    func writesMoveToThePoolAfterASlowOne() {
        let writes = AttachmentWrites()
        let start = ContinuousClock.now
        #expect(!writes.onPool(at: start))
        writes.wrote(from: start, to: start + .milliseconds(4), waited: true)
        #expect(!writes.onPool(at: start + .milliseconds(4)), "4 ms is not slow")
        writes.wrote(from: start, to: start + .milliseconds(20), waited: false)
        #expect(!writes.onPool(at: start + .milliseconds(20)), "20 ms without waiting is a preempted thread, not a slow disk")
        let slowEnd = start + .milliseconds(30)
        writes.wrote(from: start + .milliseconds(20), to: slowEnd, waited: true)
        #expect(writes.onPool(at: slowEnd))
        #expect(writes.onPool(at: slowEnd + .milliseconds(999)))
        #expect(!writes.onPool(at: slowEnd + .seconds(1)), "back on the extension's thread a second after")
        #expect(!writes.onPool(at: slowEnd + .milliseconds(500)), "and not on the pool again until another slow write")
    }

    @Test("A thread that sleeps has waited; one that only computes has not")
    func waitsAreCounted() throws {
        guard let before = AttachmentWrites.waits() else { return }  // not counted on this system
        var sum = 0
        for number in 0..<1_000 { sum &+= number &* number }
        let computed = AttachmentWrites.waits()
        // Not a wait for anything: the thread has to block once, and a sleep is the one block that needs no other
        // party. Any length blocks; how long it takes does not decide the verdict.
        usleep(2_000)
        let slept = AttachmentWrites.waits()
        #expect(sum != 0)
        #expect(computed == before, "no wait while computing")
        #expect(try #require(slept) > before, "a sleep is a wait")
    }

    @Test("A file written on the pool is the same file, and a folder missing there is made")
    func savesOnThePool() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-save-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("device/attachments")
        let writes = AttachmentWrites()
        let now = ContinuousClock.now
        writes.wrote(from: now - .milliseconds(20), to: now, waited: true)
        #expect(writes.onPool(at: .now))
        let bytes = Array("not really a png".utf8)
        let saved = try await AttachmentDownloader(directory: folder, writes: writes)
            .save(bytes, as: "delivery-1", fileExtension: "png", identifier: "delivery-1", url: "http://media/a.png")
        #expect(saved.file == folder.path + "/delivery-1.png")
        #expect(FileManager.default.contents(atPath: folder.path + "/delivery-1.png") == Data(bytes))
    }
}
