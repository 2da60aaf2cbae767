// Built by SwiftPM this module sees APNSimRules; built by `apnsim extension build` as `UserNotifications`, the one
// file of Rules it needs (AttachmentRules.swift) is compiled into it.
#if canImport(APNSimRules)
import APNSimRules
#endif

/// `options` keys of `UNNotificationAttachment(identifier:url:options:)`.
public let UNNotificationAttachmentOptionsTypeHintKey = "UNNotificationAttachmentOptionsTypeHintKey"
public let UNNotificationAttachmentOptionsThumbnailHiddenKey = "UNNotificationAttachmentOptionsThumbnailHiddenKey"
public let UNNotificationAttachmentOptionsThumbnailClippingRectKey = "UNNotificationAttachmentOptionsThumbnailClippingRectKey"
public let UNNotificationAttachmentOptionsThumbnailTimeKey = "UNNotificationAttachmentOptionsThumbnailTimeKey"

/// A file shown with a notification. Creating one checks the file as iOS does and throws `UNError` 100 (not a
/// readable file URL), 101 (a type iOS does not show), 102 (over the size limit of its kind) or 105 (its bytes
/// are not the type its name or type hint claims).
///
/// Apple, "UNNotificationAttachment", https://developer.apple.com/documentation/usernotifications/unnotificationattachment
///
/// Where apnsim differs: iOS reads the type from the file's extension or the type hint and checks the bytes
/// itself, as here, but also decodes images and movies; apnsim checks the leading bytes only. The thumbnail options
/// are kept and not used. iOS moves the file into its data store when the content is handed over; apnsim moves it
/// into the folder the device gives the push.
open class UNNotificationAttachment: NSObject, @unchecked Sendable {
    public let identifier: String
    public let url: URL
    /// The uniform type identifier, such as `public.jpeg`.
    public let type: String
    /// The options it was created with.
    public let options: [AnyHashable: Any]

    init(identifier: String, url: URL, type: String, options: [AnyHashable: Any]) {
        self.identifier = identifier
        self.url = url
        self.type = type
        self.options = options
    }

    /// Checks the file at `url` and describes it as an attachment; `identifier` empty gets a UUID, as on iOS.
    public convenience init(identifier: String, url: URL, options: [AnyHashable: Any]? = nil) throws {
        let checked = AttachmentRules.check(file: url, contents: url.isFileURL ? FileManager.default.contents(atPath: url.path) : nil,
                                            typeHint: options?[UNNotificationAttachmentOptionsTypeHintKey] as? String)
        if let refusal = checked.refusal {
            ServiceExtensionHost.reportRefusal(identifier: identifier, file: url, typeHint: options?[UNNotificationAttachmentOptionsTypeHintKey] as? String,
                                               code: refusal.code.rawValue, message: refusal.message)
            throw UNError(UNError.Code(rawValue: refusal.code.rawValue) ?? .attachmentUnrecognizedType, reason: refusal.message)
        }
        self.init(identifier: identifier.isEmpty ? UUID().uuidString : identifier, url: url, type: checked.type?.uti ?? "", options: options ?? [:])
    }
}
