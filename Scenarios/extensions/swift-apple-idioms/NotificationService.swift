// An extension as teams write it for Apple's systems, with what Linux's toolchain does not have: @objc names and
// @objcMembers, Data's .mappedRead, Logger and os_log (import OSLog, import os.log), UTType and the older kUTType
// names, Bundle.main's identifier and Info.plist, and a helper file that imports only Foundation yet uses URLSession
// (MediaFetcher.swift). apnsim builds it unchanged (docs/own-extensions.md, "On Linux").
import MobileCoreServices
import OSLog
import UniformTypeIdentifiers
import UserNotifications

@objc(NotificationService)
class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?
    let logger = Logger(subsystem: "com.example.app.NotificationService", category: "media")

    @objc override func didReceive(_ request: UNNotificationRequest,
                                   withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent else { return }
        self.bestAttempt = bestAttempt
        // The extension's own bundle, as on iOS: its identifier and its Info.plist's NSExtension keys.
        let point = (Bundle.main.infoDictionary?["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String
        bestAttempt.body += " (\(Bundle.main.bundleIdentifier ?? "no bundle identifier"), \(point ?? "no extension point"))"
        print("didReceive \(request.content.title)")
        logger.info("received \(request.identifier, privacy: .public)")
        // Register the buttons a media push offers, then take the category back from the center.
        let center = UNUserNotificationCenter.current()
        center.setNotificationCategories([UNNotificationCategory(
            identifier: "MEDIA", actions: [UNNotificationAction(identifier: "SAVE", title: "Save", options: [.foreground])],
            intentIdentifiers: [], options: [])])
        center.getNotificationCategories { categories in
            if let media = categories.first(where: { $0.identifier == "MEDIA" }) { bestAttempt.categoryIdentifier = media.identifier }
        }
        MediaFetcher().fetch(request.content.userInfo["media-url"] as? String) { [logger] file in
            let type = file.flatMap { UTType(filenameExtension: $0.pathExtension) }
            if let file, let type, type.conforms(to: .image), let bytes = try? Data(contentsOf: file, options: .mappedRead), !bytes.isEmpty,
               let attachment = try? UNNotificationAttachment(identifier: "media", url: file,
                                                              options: [UNNotificationAttachmentOptionsTypeHintKey: type == .jpeg ? kUTTypeJPEG as String : type.identifier]) {
                bestAttempt.attachments = [attachment]
                bestAttempt.subtitle = "\(bytes.count) bytes of \(type.preferredMIMEType ?? "?"), read mapped"
                logger.notice("attached \(bytes.count) bytes")
            } else {
                logger.error("nothing attached")
            }
            contentHandler(bestAttempt)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttempt { contentHandler(bestAttempt) }
    }
}
