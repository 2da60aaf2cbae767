import Foundation

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
        /// Magic bytes at `offset` that a file of this type has (any one of them), to tell a real file from a
        /// misnamed one.
        var signatures: [(offset: Int, bytes: [UInt8])]

        init(uti: String, mime: String, kind: Kind, signatures: [(offset: Int, bytes: [UInt8])]) {
            self.uti = uti
            self.mime = mime
            self.kind = kind
            self.signatures = signatures
        }

        /// Whether `bytes` start as a file of this type does.
        func matches(_ bytes: [UInt8]) -> Bool {
            signatures.contains { offset, signature in
                bytes.count >= offset + signature.count && bytes[offset..<offset + signature.count].elementsEqual(signature)
            }
        }

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

    /// The types Apple lists, by lower-case file extension, in the order ``sniff(_:)`` tries them.
    static let table: [(extensions: [String], type: FileType)] = {
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        return [
            (["jpg", "jpeg"], FileType(uti: "public.jpeg", mime: "image/jpeg", kind: .image, signatures: [(0, [0xFF, 0xD8, 0xFF])])),
            (["png"], FileType(uti: "public.png", mime: "image/png", kind: .image,
                               signatures: [(0, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])])),
            (["gif"], FileType(uti: "com.compuserve.gif", mime: "image/gif", kind: .image, signatures: [(0, ascii("GIF8"))])),
            // ISO media files name their brand after `ftyp`; the M4A brand tells audio from video.
            (["m4a"], FileType(uti: "public.mpeg-4-audio", mime: "audio/mp4", kind: .audio, signatures: [(4, ascii("ftypM4A"))])),
            (["mp4", "m4v"], FileType(uti: "public.mpeg-4", mime: "video/mp4", kind: .movie, signatures: [(4, ascii("ftyp"))])),
            (["mp3"], FileType(uti: "public.mp3", mime: "audio/mpeg", kind: .audio,
                               signatures: [(0, ascii("ID3")), (0, [0xFF, 0xFB]), (0, [0xFF, 0xF3]), (0, [0xFF, 0xF2])])),
            (["wav"], FileType(uti: "com.microsoft.waveform-audio", mime: "audio/wav", kind: .audio, signatures: [(8, ascii("WAVE"))])),
            (["aif", "aiff"], FileType(uti: "public.aiff-audio", mime: "audio/aiff", kind: .audio, signatures: [(8, ascii("AIFF"))])),
            (["avi"], FileType(uti: "public.avi", mime: "video/x-msvideo", kind: .movie, signatures: [(8, ascii("AVI "))])),
            (["mpg", "mpeg"], FileType(uti: "public.mpeg", mime: "video/mpeg", kind: .movie,
                                       signatures: [(0, [0x00, 0x00, 0x01, 0xBA]), (0, [0x00, 0x00, 0x01, 0xB3])])),
        ]
    }()

    static let byExtension: [String: FileType] = Dictionary(
        table.flatMap { entry in entry.extensions.map { ($0, entry.type) } }, uniquingKeysWith: { first, _ in first })

    /// The file extension for a MIME type (`image/jpeg` → `jpg`), or `nil` when it is not a type Apple lists.
    public static func fileExtension(forMIME mime: String) -> String? {
        let bare = mime.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let aliases = ["image/jpg": "jpg", "image/pjpeg": "jpg", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mp3": "mp3",
                       "audio/x-m4a": "m4a", "audio/x-aiff": "aiff", "video/avi": "avi"]
        return aliases[bare] ?? table.first { $0.type.mime == bare }?.extensions.first
    }

    /// The file extension of a UTI Apple lists (`public.jpeg` → `jpg`), as a type hint names it.
    public static func fileExtension(forUTI uti: String) -> String? {
        table.first { $0.type.uti == uti }?.extensions.first
    }

    /// The file extension of the type `bytes` are, by their magic bytes, or `nil` (as Airship's extension sniffs
    /// a download whose name and MIME type say nothing).
    public static func sniff(_ bytes: [UInt8]) -> String? {
        table.first { $0.type.matches(bytes) }?.extensions.first
    }

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
        guard type.matches(bytes) else {
            return Refusal(code: .corrupt, message: "the file's bytes are not \(type.uti), as its \".\(fileExtension)\" extension claims")
        }
        return nil
    }

    /// A file offered as an attachment, as `UNNotificationAttachment(identifier:url:options:)` checks it: the type
    /// comes from `typeHint` (a UTI, `UNNotificationAttachmentOptionsTypeHintKey`) or else the file's extension.
    public struct FileCheck: Sendable {
        /// The file's bytes; `nil` when it cannot be read.
        public var bytes: [UInt8]?
        public var type: FileType?
        public var refusal: Refusal?
    }

    /// `contents`: the file's bytes, as the caller read them (the rules read no files); `nil` when it could not be read.
    public static func check(file url: URL, contents: Data?, typeHint: String?) -> FileCheck {
        guard url.isFileURL, let data = contents else {
            return FileCheck(bytes: nil, type: nil, refusal: Refusal(code: .invalidURL, message: "\(url.path) is not a readable file"))
        }
        let bytes = Array(data)
        let fileExtension = typeHint.flatMap(fileExtension(forUTI:)) ?? url.pathExtension
        return FileCheck(bytes: bytes, type: fileType(forExtension: fileExtension), refusal: refusal(fileExtension: fileExtension, bytes: bytes))
    }

    /// An attachment iOS would not accept: the `UNErrorDomain` code and a sentence.
    public struct Refusal: Sendable, Hashable, Codable, Error, CustomStringConvertible {
        public var code: Code
        public var message: String

        public var description: String { "UNErrorDomain \(code.rawValue): \(message)" }

        public init(code: Code, message: String) {
            self.code = code
            self.message = message
        }
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
