import APNSimCore
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
}
