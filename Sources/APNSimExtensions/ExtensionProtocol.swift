import APNSimRules

/// The messages of docs/extension-protocol.md: one JSON object per line, on the extension's standard input
/// (from the device) and standard output (from the extension).
enum ExtensionProtocol {
    /// Device → extension: a push to handle (`didReceive`).
    struct Request: Encodable {
        var type = "request"
        var id: String
        var content: Content
        /// The folder to save attachments in.
        var attachmentsDirectory: String
        /// Milliseconds the extension has before `expire` comes.
        var budgetMs: Int
        /// The categories the app has registered (`getNotificationCategories`).
        var categories: [NotificationCategory]
    }

    /// Device → extension: time is up (`serviceExtensionTimeWillExpire`).
    struct Expire: Encodable {
        var type = "expire"
        var id: String
    }

    /// Extension → device: a call of the content handler (`type` `content`), a line for the device's log (`log`), or
    /// a file `UNNotificationAttachment` refused in the extension (`refused`: `identifier`, `file`, `typeHint`, `code`
    /// and `message`), or the app's categories as the extension set them (`categories`).
    struct Reply: Decodable {
        var type: String
        var id: String?
        var content: Content?
        var message: String?
        var identifier: String?
        var file: String?
        var typeHint: String?
        var code: Int?
        var categories: [NotificationCategory]?
    }

    /// A notification's content as both sides write it; attachments are files the extension saved.
    struct Content: Codable {
        var title: String?
        var subtitle: String?
        var body: String?
        var badge: Int?
        var sound: String?
        var threadID: String?
        var category: String?
        var interruptionLevel: String?
        var relevanceScore: Double?
        var userInfo: [String: JSONValue]?
        var attachments: [FileAttachment]?

        init(_ content: NotificationContent) {
            (title, subtitle, body, badge, sound) = (content.title, content.subtitle, content.body, content.badge, content.sound)
            (threadID, category, interruptionLevel, relevanceScore) = (content.threadID, content.category, content.interruptionLevel,
                                                                       content.relevanceScore)
            userInfo = content.userInfo
            attachments = []
        }

        /// The content the extension handed over, as `UNMutableNotificationContent` holds it: every key it sent,
        /// `userInfo` kept from the push when it sent none.
        func notificationContent(original: NotificationContent) -> NotificationContent {
            var content = NotificationContent(title: title, subtitle: subtitle, body: body, badge: badge, sound: sound,
                                              threadID: threadID, category: category)
            content.interruptionLevel = interruptionLevel
            content.relevanceScore = relevanceScore
            content.userInfo = userInfo ?? original.userInfo
            return content
        }
    }

    /// `UNNotificationAttachment(identifier:url:options:)`: a file and, optionally, the type it is (a UTI, as
    /// `UNNotificationAttachmentOptionsTypeHintKey`).
    struct FileAttachment: Codable {
        var identifier: String?
        var file: String
        var typeHint: String?
    }
}
