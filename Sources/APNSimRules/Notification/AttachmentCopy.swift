import Foundation

/// Part of the bytes of an attachment a device shows, in order: `offset` is where `data` (base64) starts in the
/// file of `size` bytes whose SHA-256 is `sha256`; `uti` is its uniform type identifier. (Not `type`: a
/// message's fields share its object with the `type` that names the message.)
public struct AttachmentCopy: Sendable, Hashable, Codable {
    public var sha256: String
    public var uti: String?
    public var size: Int
    public var offset: Int
    public var data: String
    /// Raw bytes per message: 32 KiB is 43,692 characters of base64, well within a 65,536-byte frame.
    public static let chunkSize = 32 * 1024

    public init(sha256: String, uti: String?, size: Int, offset: Int, data: String) {
        self.sha256 = sha256
        self.uti = uti
        self.size = size
        self.offset = offset
        self.data = data
    }

    /// `bytes` in the parts a device sends, in order: ``chunkSize`` bytes each, base64.
    public static func parts(of bytes: [UInt8], sha256: String, uti: String?) -> [AttachmentCopy] {
        stride(from: 0, to: max(bytes.count, 1), by: chunkSize).map { offset in
            let chunk = bytes[offset..<min(offset + chunkSize, bytes.count)]
            return AttachmentCopy(sha256: sha256, uti: uti, size: bytes.count, offset: offset, data: Data(chunk).base64EncodedString())
        }
    }
}
