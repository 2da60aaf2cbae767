/// What iOS accepts as a notification attachment: the supported types, each with its size limit, read from the
/// file extension; and the `UNErrorDomain` codes for what it refuses.
///
/// Apple, "UNNotificationAttachment", https://developer.apple.com/documentation/usernotifications/unnotificationattachment
/// (supported file types and maximum sizes), and "UNError.Code",
/// https://developer.apple.com/documentation/usernotifications/unerror/code
public enum AttachmentRules {
    public struct FileType: Sendable, Hashable {
        /// The uniform type identifier iOS reports as the attachment's `type`.
        public var uti: String
        /// The MIME type a server sends for it.
        public var mime: String
        public var kind: Kind
        /// Magic bytes at `offset` that a file of this type starts with, to tell a real file from a misnamed one.
        var signature: (offset: Int, bytes: [UInt8])

        public static func == (lhs: FileType, rhs: FileType) -> Bool { lhs.uti == rhs.uti }
        public func hash(into hasher: inout Hasher) { hasher.combine(uti) }
    }

    public enum Kind: String, Sendable {
        case image, audio, movie

        /// Apple's limits: audio 5 MB, images 10 MB, movies 50 MB.
        public var maximumSize: Int {
            switch self {
            case .audio: 5_000_000
            case .image: 10_000_000
            case .movie: 50_000_000
            }
        }
    }

    /// The types apnsim checks, by lower-case file extension.
    static let byExtension: [String: FileType] = {
        let jpeg = FileType(uti: "public.jpeg", mime: "image/jpeg", kind: .image, signature: (0, [0xFF, 0xD8, 0xFF]))
        let png = FileType(uti: "public.png", mime: "image/png", kind: .image,
                           signature: (0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let gif = FileType(uti: "com.compuserve.gif", mime: "image/gif", kind: .image, signature: (0, Array("GIF8".utf8)))
        let mp4 = FileType(uti: "public.mpeg-4", mime: "video/mp4", kind: .movie, signature: (4, Array("ftyp".utf8)))
        let m4a = FileType(uti: "public.mpeg-4-audio", mime: "audio/mp4", kind: .audio, signature: (4, Array("ftyp".utf8)))
        return ["jpg": jpeg, "jpeg": jpeg, "png": png, "gif": gif, "mp4": mp4, "m4v": mp4, "m4a": m4a]
    }()

    /// The type a file of this extension is taken to be, or `nil` when iOS does not support it.
    public static func fileType(forExtension fileExtension: String) -> FileType? {
        byExtension[fileExtension.lowercased()]
    }

    /// Why iOS would refuse `bytes` as an attachment named with `fileExtension`, or `nil` when it accepts it.
    public static func refusal(fileExtension: String, bytes: [UInt8]) -> Refusal? {
        guard let type = fileType(forExtension: fileExtension) else {
            return Refusal(code: .unrecognizedType, message: "\".\(fileExtension)\" is not a supported attachment type")
        }
        guard bytes.count <= type.kind.maximumSize else {
            return Refusal(code: .invalidFileSize,
                           message: "\(bytes.count) bytes is over the \(type.kind.maximumSize)-byte limit for \(type.kind.rawValue) attachments")
        }
        let (offset, signature) = type.signature
        guard bytes.count >= offset + signature.count, Array(bytes[offset..<offset + signature.count]) == signature else {
            return Refusal(code: .corrupt, message: "the file's bytes are not \(type.uti), as its \".\(fileExtension)\" extension claims")
        }
        return nil
    }

    /// An attachment iOS would not accept: the `UNErrorDomain` code and a sentence.
    public struct Refusal: Sendable, Hashable, Codable, Error, CustomStringConvertible {
        public var code: Code
        public var message: String

        public var description: String { "UNErrorDomain \(code.rawValue): \(message)" }
    }

    /// `UNError.Code` values for attachments.
    public enum Code: Int, Sendable, Hashable, Codable {
        case invalidURL = 100
        case unrecognizedType = 101
        case invalidFileSize = 102
        case notInDataStore = 103
        case moveIntoDataStoreFailed = 104
        case corrupt = 105
    }
}
