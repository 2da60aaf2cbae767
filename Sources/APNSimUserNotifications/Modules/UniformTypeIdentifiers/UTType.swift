// apnsim's `UniformTypeIdentifiers` module for extensions built on Linux (docs/own-extensions.md, "On Linux"): `UTType`
// with the types a notification's media comes in, their filename extensions, MIME types and what they conform to.
// Apple, "UTType", https://developer.apple.com/documentation/uniformtypeidentifiers/uttype
//
// Where it differs from Apple's: only the types below are known; any other identifier, extension or MIME type gives
// `nil`, where Apple may make a dynamic type.
import Foundation

public struct UTType: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let identifier: String

    struct Declaration {
        var identifier: String
        var extensions: [String] = []
        var mimeTypes: [String] = []
        var conformsTo: [String]
    }

    static let declarations: [String: Declaration] = Dictionary(uniqueKeysWithValues: [
        Declaration(identifier: "public.item", conformsTo: []),
        Declaration(identifier: "public.content", conformsTo: []),
        Declaration(identifier: "public.data", conformsTo: ["public.item"]),
        Declaration(identifier: "public.image", conformsTo: ["public.data", "public.content"]),
        Declaration(identifier: "public.audiovisual-content", conformsTo: ["public.data", "public.content"]),
        Declaration(identifier: "public.movie", conformsTo: ["public.audiovisual-content"]),
        Declaration(identifier: "public.video", conformsTo: ["public.movie"]),
        Declaration(identifier: "public.audio", conformsTo: ["public.audiovisual-content"]),
        Declaration(identifier: "public.text", conformsTo: ["public.data", "public.content"]),
        Declaration(identifier: "public.plain-text", extensions: ["txt", "text"], mimeTypes: ["text/plain"], conformsTo: ["public.text"]),
        Declaration(identifier: "public.json", extensions: ["json"], mimeTypes: ["application/json"], conformsTo: ["public.text"]),
        Declaration(identifier: "public.jpeg", extensions: ["jpeg", "jpg", "jpe"], mimeTypes: ["image/jpeg", "image/jpg"], conformsTo: ["public.image"]),
        Declaration(identifier: "public.png", extensions: ["png"], mimeTypes: ["image/png"], conformsTo: ["public.image"]),
        Declaration(identifier: "com.compuserve.gif", extensions: ["gif"], mimeTypes: ["image/gif"], conformsTo: ["public.image"]),
        Declaration(identifier: "public.heic", extensions: ["heic"], mimeTypes: ["image/heic"], conformsTo: ["public.image"]),
        Declaration(identifier: "org.webmproject.webp", extensions: ["webp"], mimeTypes: ["image/webp"], conformsTo: ["public.image"]),
        Declaration(identifier: "public.mpeg-4", extensions: ["mp4", "mpg4"], mimeTypes: ["video/mp4"], conformsTo: ["public.movie"]),
        Declaration(identifier: "com.apple.quicktime-movie", extensions: ["mov", "qt"], mimeTypes: ["video/quicktime"], conformsTo: ["public.movie"]),
        Declaration(identifier: "public.avi", extensions: ["avi"], mimeTypes: ["video/avi", "video/x-msvideo"], conformsTo: ["public.movie"]),
        Declaration(identifier: "public.mpeg", extensions: ["mpg", "mpeg"], mimeTypes: ["video/mpeg"], conformsTo: ["public.movie"]),
        Declaration(identifier: "public.mp3", extensions: ["mp3"], mimeTypes: ["audio/mpeg", "audio/mp3"], conformsTo: ["public.audio"]),
        Declaration(identifier: "public.mpeg-4-audio", extensions: ["m4a"], mimeTypes: ["audio/mp4", "audio/m4a"], conformsTo: ["public.audio"]),
        Declaration(identifier: "com.microsoft.waveform-audio", extensions: ["wav", "wave"], mimeTypes: ["audio/wav", "audio/x-wav"], conformsTo: ["public.audio"]),
        Declaration(identifier: "public.aiff-audio", extensions: ["aiff", "aif"], mimeTypes: ["audio/aiff", "audio/x-aiff"], conformsTo: ["public.audio"]),
    ].map { ($0.identifier, $0) })

    public init?(_ identifier: String) {
        guard Self.declarations[identifier.lowercased()] != nil else { return nil }
        self.identifier = identifier.lowercased()
    }

    public init?(filenameExtension: String, conformingTo supertype: UTType = .data) {
        let ext = filenameExtension.lowercased()
        guard let found = Self.declarations.values.filter({ $0.extensions.contains(ext) }).min(by: { $0.identifier < $1.identifier }),
              UTType(found.identifier)?.conforms(to: supertype) == true else { return nil }
        identifier = found.identifier
    }

    public init?(mimeType: String, conformingTo supertype: UTType = .data) {
        let mime = mimeType.lowercased()
        guard let found = Self.declarations.values.filter({ $0.mimeTypes.contains(mime) }).min(by: { $0.identifier < $1.identifier }),
              UTType(found.identifier)?.conforms(to: supertype) == true else { return nil }
        identifier = found.identifier
    }

    private init(known identifier: String) { self.identifier = identifier }

    public var preferredFilenameExtension: String? { Self.declarations[identifier]?.extensions.first }
    public var preferredMIMEType: String? { Self.declarations[identifier]?.mimeTypes.first }
    public var tags: [String: [String]] {
        ["public.filename-extension": Self.declarations[identifier]?.extensions ?? [], "public.mime-type": Self.declarations[identifier]?.mimeTypes ?? []]
    }
    public var isDeclared: Bool { true }
    public var isDynamic: Bool { false }
    public var localizedDescription: String? { identifier }

    /// Every type this one conforms to, itself excluded.
    public var supertypes: Set<UTType> {
        var found = Set<UTType>()
        var pending = Self.declarations[identifier]?.conformsTo ?? []
        while let next = pending.popLast() {
            if found.insert(UTType(known: next)).inserted { pending += Self.declarations[next]?.conformsTo ?? [] }
        }
        return found
    }

    public func conforms(to type: UTType) -> Bool { type == self || supertypes.contains(type) }
    public func isSupertype(of type: UTType) -> Bool { type.conforms(to: self) }
    public func isSubtype(of type: UTType) -> Bool { conforms(to: type) && type != self }

    public var description: String { identifier }
    public var debugDescription: String { identifier }

    public static let item = UTType(known: "public.item")
    public static let content = UTType(known: "public.content")
    public static let data = UTType(known: "public.data")
    public static let image = UTType(known: "public.image")
    public static let audiovisualContent = UTType(known: "public.audiovisual-content")
    public static let movie = UTType(known: "public.movie")
    public static let video = UTType(known: "public.video")
    public static let audio = UTType(known: "public.audio")
    public static let text = UTType(known: "public.text")
    public static let plainText = UTType(known: "public.plain-text")
    public static let json = UTType(known: "public.json")
    public static let jpeg = UTType(known: "public.jpeg")
    public static let png = UTType(known: "public.png")
    public static let gif = UTType(known: "com.compuserve.gif")
    public static let heic = UTType(known: "public.heic")
    public static let webP = UTType(known: "org.webmproject.webp")
    public static let mpeg4Movie = UTType(known: "public.mpeg-4")
    public static let quickTimeMovie = UTType(known: "com.apple.quicktime-movie")
    public static let avi = UTType(known: "public.avi")
    public static let mpeg = UTType(known: "public.mpeg")
    public static let mp3 = UTType(known: "public.mp3")
    public static let mpeg4Audio = UTType(known: "public.mpeg-4-audio")
    public static let wav = UTType(known: "com.microsoft.waveform-audio")
    public static let aiff = UTType(known: "public.aiff-audio")
}
