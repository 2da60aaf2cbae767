import APNSimGateway
@testable import APNSimInbox
import APNSimRules
import Foundation
import Testing

/// The gateway's store of the attachments devices show: parts in order make a checked copy; anything else is a
/// sentence and leaves no copy behind.
@Suite("Attachment copies")
struct AttachmentCopiesTests {
    static let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
    static let sha = NotificationContent.Attachment.sha256(of: bytes)

    static func parts() -> [AttachmentCopy] { AttachmentCopy.parts(of: bytes, sha256: sha, uti: "public.png") }

    @Test("Parts in order make a copy with the type's MIME type; a second copy of the same file is ignored")
    func whole() throws {
        let copies = try AttachmentCopies(folder: nil, limit: 1 << 20)
        #expect(copies.file(Self.sha) == nil)
        for part in Self.parts() { try copies.receive(part) }
        let (url, mime, _) = try #require(copies.file(Self.sha))
        #expect(mime == "image/png")
        #expect(url.lastPathComponent == "\(Self.sha).png")
        #expect([UInt8](try Data(contentsOf: url)) == Self.bytes)
        for part in Self.parts() { try copies.receive(part) }
        #expect(copies.file(Self.sha)?.url == url)
    }

    @Test("A part out of order, bytes that do not match the SHA-256, bad base64 or a bad digest: a sentence, no copy")
    func badParts() throws {
        let copies = try AttachmentCopies(folder: nil, limit: 1 << 20)
        var parts = Self.parts()
        try copies.receive(parts[0])
        #expect(throws: GatewayError.self) { try copies.receive(parts[2]) }
        #expect(copies.file(Self.sha) == nil)

        parts[1].data = Data(repeating: 1, count: Data(base64Encoded: parts[1].data)!.count).base64EncodedString()
        #expect(throws: GatewayError.self) { for part in parts { try copies.receive(part) } }
        #expect(copies.file(Self.sha) == nil)

        var broken = Self.parts()[0]
        broken.data = "not base64!"
        #expect(throws: GatewayError.self) { try copies.receive(broken) }
        broken = Self.parts()[0]
        broken.sha256 = "../../etc/passwd"
        let error = #expect(throws: GatewayError.self) { try copies.receive(broken) }
        #expect(error?.description.contains("is not a SHA-256 in lower-case hex") == true)
        // Sent again in order, the file is whole after all.
        for part in Self.parts() { try copies.receive(part) }
        #expect(copies.file(Self.sha) != nil)
    }

    @Test("Over the limit, the oldest copies go; a copy a previous run kept is found again")
    func limitAndRestart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-copies-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copies = try AttachmentCopies(folder: folder, limit: 100_000)
        let small = [UInt8](repeating: 7, count: 40_000)
        let smallSHA = NotificationContent.Attachment.sha256(of: small)
        for part in AttachmentCopy.parts(of: small, sha256: smallSHA, uti: "public.jpeg") { try copies.receive(part) }
        for part in Self.parts() { try copies.receive(part) }
        #expect(copies.file(smallSHA) == nil)
        #expect(copies.file(Self.sha) != nil)
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(smallSHA).jpg"))
        let again = try AttachmentCopies(folder: folder, limit: 100_000)
        #expect(again.file(Self.sha)?.mime == "image/png")
    }

    @Test("Range headers: a start and end, an open end, a suffix; anything else is the whole file", arguments: [
        ("bytes=0-9", 0...9), ("bytes=95-", 95...99), ("bytes=-10", 90...99), ("bytes=90-500", 90...99),
        ("bytes=100-", nil), ("bytes=5-2", nil), ("bytes=0-1,4-5", nil), ("items=0-1", nil), ("bytes=x-", nil),
    ] as [(String, ClosedRange<Int>?)])
    func ranges(header: String, range: ClosedRange<Int>?) {
        #expect(Inbox.byteRange(header, size: 100) == range)
    }
}
