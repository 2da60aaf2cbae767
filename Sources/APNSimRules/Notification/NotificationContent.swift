import Crypto
import Foundation

/// What a push asks a device to show, read from its payload the way iOS reads `aps` (Apple, "Generating a remote
/// notification", https://developer.apple.com/documentation/usernotifications/generating-a-remote-notification). The
/// service extension may change it.
public struct NotificationContent: Sendable, Hashable, Codable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// `nil`: leave the badge as it is; `0`: remove it.
    public var badge: Int?
    /// A sound name, `default`, or the name of a critical sound (`sound` may be a dictionary).
    public var sound: String?
    public var threadID: String?
    public var category: String?
    /// `passive`, `active`, `time-sensitive` or `critical`; `nil` means active.
    public var interruptionLevel: String?
    public var relevanceScore: Double?
    /// The attachments the device shows: those the service extension added that iOS took. Refused ones are in the
    /// extension's record (``ExtensionRun/refusedAttachments``).
    public var attachments: [Attachment] = []
    /// Every top-level key of the payload except `aps`, as the app's `userInfo` holds them.
    public var userInfo: [String: JSONValue] = [:]
    /// The buttons shown with it: the actions of the app's registered category that ``category`` names; `nil` when
    /// it names none the app registered. Set by the device when it shows the notification.
    public var actions: [NotificationCategory.Action]?

    /// A file the service extension attached: what iOS made of it, or why it refused it.
    public struct Attachment: Sendable, Hashable, Codable {
        public var identifier: String
        /// The uniform type identifier, such as `public.jpeg`; absent when the type is not supported.
        public var type: String?
        public var size: Int
        public var sha256: String
        /// Where the extension downloaded it from.
        public var url: String?
        /// Why iOS refused it (`UNErrorDomain` code and a sentence); a refused attachment is not shown, and is listed
        /// in the extension's record rather than the content.
        public var refusal: AttachmentRules.Refusal?
        /// Where the device keeps its copy, on the device's machine only: not encoded, not compared. The device
        /// sends the gateway the bytes from here (the device link's `attachmentCopy`, docs/device-link.md).
        public var file: String?

        enum CodingKeys: String, CodingKey {
            case identifier, type, size, sha256, url, refusal
        }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            (lhs.identifier, lhs.type, lhs.size, lhs.sha256, lhs.url) == (rhs.identifier, rhs.type, rhs.size, rhs.sha256, rhs.url)
                && lhs.refusal == rhs.refusal
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(identifier)
            hasher.combine(sha256)
        }

        /// The SHA-256 of `bytes` in lower-case hex, as ``sha256`` holds it.
        public static func sha256(of bytes: [UInt8]) -> String {
            hex(SHA256.hash(data: bytes))
        }

        /// A SHA-256 digest (one hashed piece by piece, too) in lower-case hex, as ``sha256`` holds it.
        public static func hex(_ digest: SHA256.Digest) -> String {
            Hex.lowercase(Array(digest))
        }

        public init(identifier: String, type: String?, size: Int, sha256: String, url: String? = nil,
                    refusal: AttachmentRules.Refusal? = nil, file: String? = nil) {
            self.file = file
            self.identifier = identifier
            self.type = type
            self.size = size
            self.sha256 = sha256
            self.url = url
            self.refusal = refusal
        }
    }

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, badge: Int? = nil, sound: String? = nil,
                threadID: String? = nil, category: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.badge = badge
        self.sound = sound
        self.threadID = threadID
        self.category = category
    }

    /// Whether there is anything to show: an alert with text (a badge or sound alone shows no banner).
    public var hasVisibleAlert: Bool {
        // Each in turn, not through an array of the three: that array is made on the heap at every call, 900
        // instructions, and a device asks several times a push (`Benchmarks/instructions.sh`, the display path).
        !(title ?? "").isEmpty || !(subtitle ?? "").isEmpty || !(body ?? "").isEmpty
    }
}

/// A payload as the device reads it: the content plus the flags that choose the pipeline path.
public struct PushPayload: Sendable, Hashable {
    public var content: NotificationContent
    /// `aps.content-available: 1`: wake the app in the background.
    public var contentAvailable: Bool
    /// `aps.mutable-content: 1`: let the service extension change the content first.
    public var mutableContent: Bool
    /// The whole `aps` dictionary, for paths that read other keys (Live Activity `content-state`, `event`).
    public var aps: [String: JSONValue]
    /// What the payload asks of a Live Activity, or why ActivityKit could not read it (``ActivityPush``); `nil` when
    /// `aps` has no `event`. Read with the payload, so the thousand pushes of a broadcast that share one payload read it
    /// once.
    public var activityPush: Result<ActivityPush, ActivityPushError>?

    /// Reads a payload; throws ``PayloadError`` with a sentence when it is not a JSON object.
    public init(json bytes: some Collection<UInt8>) throws(PayloadError) {
        guard let root = JSONObjectSyntax.object(bytes) else {
            throw PayloadError("the payload is not a JSON object")
        }
        guard case .object(let aps)? = root["aps"] ?? .object([:]) else {
            throw PayloadError("aps is not a dictionary")
        }
        self.aps = aps
        // One pass over `aps`, each key read where it is met, rather than a dictionary lookup (a hash of the key) for
        // each key apnsim reads, present or not: 14 lookups, 5,000 instructions a push (`Benchmarks/instructions.sh`).
        var content = NotificationContent()
        var (contentAvailable, mutableContent, hasEvent) = (false, false, false)
        for (key, value) in aps {
            switch key {
            case "alert":
                switch value {
                case .string(let body): content.body = body
                case .object(let alert):
                    for (key, value) in alert {
                        switch key {
                        case "title": content.title = value.string
                        case "subtitle": content.subtitle = value.string
                        case "body": content.body = value.string
                        default: break
                        }
                    }
                default: break
                }
            case "badge": content.badge = value.integer
            case "sound":
                switch value {
                case .string(let name): content.sound = name
                case .object(let critical): content.sound = critical["name"]?.string
                default: break
                }
            case "thread-id": content.threadID = value.string
            case "category": content.category = value.string
            case "interruption-level": content.interruptionLevel = value.string
            case "relevance-score": content.relevanceScore = value.number
            case "content-available": contentAvailable = value.integer == 1
            case "mutable-content": mutableContent = value.integer == 1
            case "event": hasEvent = true
            default: break
            }
        }
        var userInfo = root
        userInfo["aps"] = nil
        content.userInfo = userInfo
        self.content = content
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
        activityPush = hasEvent ? Result { () throws(ActivityPushError) in try ActivityPush(aps: aps) } : nil
    }

    public struct PayloadError: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
