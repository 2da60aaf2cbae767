// An extension as teams write it for Apple's systems, with what Linux's toolchain does not have: @objc names and
// @objcMembers, Data's .mappedRead, and a helper file that imports only Foundation yet uses URLSession
// (MediaFetcher.swift). apnsim builds it unchanged (docs/own-extensions.md, "On Linux").
import UserNotifications

@objc(NotificationService)
class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?

    @objc override func didReceive(_ request: UNNotificationRequest,
                                   withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent else { return }
        self.bestAttempt = bestAttempt
        MediaFetcher().fetch(request.content.userInfo["media-url"] as? String) { file in
            if let file, let bytes = try? Data(contentsOf: file, options: .mappedRead), !bytes.isEmpty,
               let attachment = try? UNNotificationAttachment(identifier: "media", url: file, options: nil) {
                bestAttempt.attachments = [attachment]
                bestAttempt.subtitle = "\(bytes.count) bytes, read mapped"
            }
            contentHandler(bestAttempt)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttempt { contentHandler(bestAttempt) }
    }
}
