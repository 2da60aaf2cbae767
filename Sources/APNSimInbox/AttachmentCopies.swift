import APNSimRules
import APNSimGateway
import Crypto
import Foundation
import Synchronization

/// The attachments devices show, as the devices themselves saved them: each arrives over the device link in
/// `attachmentCopy` messages (docs/device-link.md) and is kept as `SHA256.EXT` in one folder, which the inbox
/// reads through `GET /v1/attachments/{sha256}` (docs/inbox.md). A copy is checked against its SHA-256 before it
/// is served; the oldest copies go once the folder holds more than its limit.
final class AttachmentCopies: Sendable {
    let folder: URL
    private let limit: Int
    /// Removed when the gateway stops (no folder was given).
    private let temporary: Bool

    private struct State {
        /// Copies being received: where the next part starts, and the SHA-256 of the bytes so far (so the check at
        /// the end reads nothing back: parts arrive on a device link's event loop).
        var parts: [String: (next: Int, hash: SHA256)] = [:]
        /// Complete copies, by SHA-256, oldest first in `order`.
        var files: [String: (name: String, size: Int)] = [:]
        var order: [String] = []
        var bytes = 0
    }
    private let state = Mutex(State())

    /// - Parameter folder: where to keep the copies; `nil` makes a temporary folder.
    init(folder: String?, limit: Int) throws {
        temporary = folder == nil
        self.folder = folder.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-gateway-attachments-\(UUID().uuidString)")
        self.limit = limit
        // A temporary folder is made with the first copy: a gateway that never gets one (most of a test suite's
        // thousands, whose processes end without this object's deinit) leaves nothing behind.
        guard !temporary else { return }
        do {
            try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        } catch {
            throw GatewayError("cannot keep attachment copies in \(self.folder.path): \(error)")
        }
        // Copies a previous run kept, oldest first.
        let kept = (try? FileManager.default.contentsOfDirectory(at: self.folder, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey])) ?? []
        let dated = kept.compactMap { url -> (String, String, Date, Int)? in
            let name = url.lastPathComponent
            guard let sha = name.split(separator: ".").first.map(String.init), Self.isDigest(sha), !name.hasSuffix(".part") else { return nil }
            let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
            return (sha, name, values?.contentModificationDate ?? .distantPast, values?.fileSize ?? 0)
        }.sorted { $0.2 < $1.2 }
        state.withLock { state in
            for (sha, name, _, size) in dated {
                state.files[sha] = (name, size)
                state.order.append(sha)
                state.bytes += size
            }
        }
    }

    deinit {
        removeTemporaryFolder()
    }

    /// Removes a temporary folder and forgets its copies (the gateway stopped); a copy that arrives later starts it
    /// afresh. A folder that was given stays as it is.
    func removeTemporaryFolder() {
        guard temporary else { return }
        state.withLock { $0 = State() }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A copy's file, its MIME type and size, once it has arrived whole.
    func file(_ sha256: String) -> (url: URL, mime: String, size: Int)? {
        guard let (name, size) = state.withLock({ $0.files[sha256] }) else { return nil }
        let fileExtension = (name as NSString).pathExtension
        return (folder.appendingPathComponent(name),
                AttachmentRules.fileType(forExtension: fileExtension)?.mime ?? "application/octet-stream", size)
    }

    /// Takes one part of a copy; throws a sentence when the part cannot be taken (the copy is then dropped, and the
    /// inbox shows the attachment from its source URL).
    func receive(_ copy: AttachmentCopy) throws(GatewayError) {
        let sha = copy.sha256
        guard Self.isDigest(sha) else { throw GatewayError("attachment copy: \(sha.prefix(80)) is not a SHA-256 in lower-case hex") }
        guard copy.size >= 0, copy.size <= AttachmentRules.Kind.movie.maximumSize else {
            throw GatewayError("attachment copy \(sha): \(copy.size) bytes is more than any attachment iOS takes")
        }
        guard let data = Data(base64Encoded: copy.data) else { throw GatewayError("attachment copy \(sha): the data is not base64") }
        let part = folder.appendingPathComponent("\(sha).part")
        let progress: (next: Int, hash: SHA256)? = state.withLock { state in
            if state.files[sha] != nil { return nil }  // already here
            return state.parts[sha] ?? (0, SHA256())
        }
        guard let (expected, start) = progress else { return }
        guard copy.offset == expected, copy.offset + data.count <= copy.size else {
            state.withLock { _ = $0.parts.removeValue(forKey: sha) }
            try? FileManager.default.removeItem(at: part)
            throw GatewayError("attachment copy \(sha): a part at byte \(copy.offset) came where byte \(expected) was due; the copy is dropped")
        }
        do {
            // The first part starts the file afresh (a part file left by a copy that broke off is emptied).
            if copy.offset == 0 {
                if temporary { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
                // Not FileManager's createFile, which writes a file beside it, syncs it to the disk and renames it:
                // this runs on the device link's event loop, and a copy's parts need no sync.
                let descriptor = open(part.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard descriptor >= 0 else { throw GatewayError("cannot create the file") }
                close(descriptor)
            }
            let handle = try FileHandle(forWritingTo: part)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        } catch {
            state.withLock { _ = $0.parts.removeValue(forKey: sha) }
            throw GatewayError("attachment copy \(sha): cannot write \(part.path): \(error)")
        }
        var hash = start
        hash.update(data: data)
        let received = copy.offset + data.count
        guard received == copy.size else {
            state.withLock { $0.parts[sha] = (received, hash) }
            return
        }
        state.withLock { _ = $0.parts.removeValue(forKey: sha) }
        try finish(part, copy: copy, digest: NotificationContent.Attachment.hex(hash.finalize()))
    }

    private func finish(_ part: URL, copy: AttachmentCopy, digest: String) throws(GatewayError) {
        let sha = copy.sha256
        guard digest == sha else {
            try? FileManager.default.removeItem(at: part)
            throw GatewayError("attachment copy \(sha): the bytes do not have that SHA-256; the copy is dropped")
        }
        let name = "\(sha).\(copy.uti.flatMap(AttachmentRules.fileExtension(forUTI:)) ?? "bin")"
        do {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            try FileManager.default.moveItem(at: part, to: folder.appendingPathComponent(name))
        } catch {
            throw GatewayError("attachment copy \(sha): cannot keep it as \(name): \(error)")
        }
        let evicted = state.withLock { state -> [String] in
            state.files[sha] = (name, copy.size)
            state.order.append(sha)
            state.bytes += copy.size
            var evicted: [String] = []
            while state.bytes > limit, state.order.count > 1 {
                let oldest = state.order.removeFirst()
                if let file = state.files.removeValue(forKey: oldest) {
                    evicted.append(file.name)
                    state.bytes -= file.size
                }
            }
            return evicted
        }
        for file in evicted { try? FileManager.default.removeItem(at: folder.appendingPathComponent(file)) }
    }

    static func isDigest(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
