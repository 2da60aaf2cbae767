import APNSimRules
import Foundation
import Testing

/// iOS's attachment checks: supported types by file extension, per-kind size limits, bytes that match the type.
@Suite("Attachment rules")
struct AttachmentRulesTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0, count: 100)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 100)

    @Test("A JPEG named .jpg, a PNG named .PNG and an MP4 are accepted with their UTIs")
    func accepted() {
        #expect(AttachmentRules.refusal(fileExtension: "jpg", bytes: Self.jpeg) == nil)
        #expect(AttachmentRules.refusal(fileExtension: "PNG", bytes: Self.png) == nil)
        #expect(AttachmentRules.refusal(fileExtension: "mp4", bytes: [0, 0, 0, 0x18] + Array("ftypmp42".utf8)) == nil)
        #expect(AttachmentRules.fileType(forExtension: "jpeg")?.uti == "public.jpeg")
        #expect(AttachmentRules.fileType(forExtension: "gif")?.uti == "com.compuserve.gif")
        #expect(AttachmentRules.fileType(forExtension: "m4a")?.uti == "public.mpeg-4-audio")
    }

    @Test("Refusals carry UNErrorDomain's code: 101 unsupported type, 102 too large, 105 not what the name says")
    func refused() {
        #expect(AttachmentRules.refusal(fileExtension: "webp", bytes: Self.jpeg)?.code == .unrecognizedType)
        let big = Self.png + Array(repeating: 0, count: 12_000_000)
        #expect(AttachmentRules.refusal(fileExtension: "png", bytes: big)?.code == .invalidFileSize)
        #expect(AttachmentRules.refusal(fileExtension: "jpg", bytes: Self.png)?.code == .corrupt)
        #expect(AttachmentRules.refusal(fileExtension: "jpg", bytes: [])?.code == .corrupt)
        #expect(AttachmentRules.Code.invalidFileSize.rawValue == 102)
    }

    @Test("MIME types and magic bytes name the types Apple lists; an M4A is told from an MP4 by its brand")
    func mimeAndSniffing() {
        #expect(AttachmentRules.fileExtension(forMIME: "image/jpeg; charset=binary") == "jpg")
        #expect(AttachmentRules.fileExtension(forMIME: "audio/mpeg") == "mp3")
        #expect(AttachmentRules.fileExtension(forMIME: "image/webp") == nil)
        #expect(AttachmentRules.sniff(Self.png) == "png")
        #expect(AttachmentRules.sniff([0, 0, 0, 0x1C] + Array("ftypM4A ".utf8)) == "m4a")
        #expect(AttachmentRules.sniff([0, 0, 0, 0x18] + Array("ftypmp42".utf8)) == "mp4")
        #expect(AttachmentRules.sniff(Array("ID3".utf8) + [4, 0]) == "mp3")
        #expect(AttachmentRules.sniff([1, 2, 3]) == nil)
        #expect(AttachmentRules.refusal(fileExtension: "m4a", bytes: [0, 0, 0, 0x18] + Array("ftypmp42".utf8))?.code == .corrupt)
    }

    @Test("An attachment's SHA-256 is lower-case hex, two digits a byte, as String(format: \"%02x\") writes each")
    func sha256Hex() {
        #expect(NotificationContent.Attachment.sha256(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let every = (0...255).map { UInt8($0) }
        #expect(Hex.lowercase(every) == every.map { String(format: "%02x", $0) }.joined())
        #expect(Hex.lowercase([UInt8]()) == "")
    }
}
