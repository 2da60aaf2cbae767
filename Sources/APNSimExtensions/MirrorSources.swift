import APNSimRules
import Crypto
import Foundation

/// Where the UserNotifications mirror's sources come from when apnsim builds a team's extension: the copy built into
/// this binary (the EmbedFiles build plugin), written once into the build cache as a folder laid out as apnsim's
/// package is (`Sources/APNSimUserNotifications`, `Sources/APNSimRules/Notification/AttachmentRules.swift`). So an
/// apnsim copied anywhere, installed, or run from its image builds extensions with the mirror it was built with, and
/// needs no checkout (docs/own-extensions.md, "Installing").
enum MirrorSources {
    /// The folder holding the embedded mirror under `cache`, written if it is not there yet; named by a hash of
    /// every file, so binaries of different versions sharing a cache do not mix their mirrors.
    static func folder(in cache: URL) throws(ExtensionError) -> URL {
        var hasher = SHA256()
        for file in EmbeddedMirror.files {
            hasher.update(data: Data(file.path.utf8))
            hasher.update(data: Data(file.base64.utf8))
        }
        let name = "mirror-" + Hex.lowercase(Array(hasher.finalize()).prefix(8))
        let folder = cache.appendingPathComponent(name)
        let complete = folder.appendingPathComponent(".complete")
        if FileManager.default.fileExists(atPath: complete.path) { return folder }
        // Written in a folder of its own, then renamed into place: two devices starting at once both succeed.
        let work = cache.appendingPathComponent("\(name).writing-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            for file in EmbeddedMirror.files {
                guard let bytes = Data(base64Encoded: file.base64) else { throw ExtensionError("the embedded \(file.path) is damaged") }
                let destination = work.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                try bytes.write(to: destination)
            }
            try Data().write(to: work.appendingPathComponent(".complete"))
            try FileManager.default.moveItem(at: work, to: folder)
        } catch where FileManager.default.fileExists(atPath: complete.path) {
            // Another process wrote it first.
        } catch {
            throw ExtensionError("cannot write apnsim's UserNotifications sources under \(cache.path): \(error.localizedDescription)")
        }
        return folder
    }
}
