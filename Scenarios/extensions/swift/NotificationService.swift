// A notification service extension written as it would be for iOS, against Apple's UserNotifications, that
// apnsim builds and runs in a device (kind swift; docs/own-extensions.md). The payload's "test" key picks what it
// does, so one extension covers every rule swift-extension.yaml and swift-filtering.yaml check.
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?
    var answersExpiry = true
    /// What "memory" holds on to: kept in a static, as a leak would be.
    static var hoard: [[UInt8]] = []

    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let bestAttempt else { return }

        switch request.content.userInfo["test"] as? String {
        case "never":
            answersExpiry = false  // neither here nor at expiry: iOS shows the original after the budget
        case "twice":
            bestAttempt.body = "first"
            contentHandler(bestAttempt)
            let second = bestAttempt.mutableCopy() as! UNMutableNotificationContent
            second.body = "second"
            contentHandler(second)
        case "crash":
            let missing: String? = nil
            bestAttempt.body = missing!
        case "memory":
            answersExpiry = false
            for _ in 0..<64 { Self.hoard.append([UInt8](repeating: 1, count: 1 << 20)) }
        case "remove-alert":
            bestAttempt.title = ""
            bestAttempt.body = ""
            contentHandler(bestAttempt)
        case "suppress":
            contentHandler(UNNotificationContent())
        case "bundled":
            if let path = Bundle.main.path(forResource: "sample", ofType: "gif"),
               let attachment = try? UNNotificationAttachment(identifier: "logo", url: URL(fileURLWithPath: path), options: nil) {
                bestAttempt.attachments = [attachment]
            }
            contentHandler(bestAttempt)
        case "misnamed":
            // A PNG's bytes saved as .jpg: UNNotificationAttachment throws UNError.attachmentCorrupt (105).
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(request.identifier).jpg")
            try? Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: file)
            do {
                bestAttempt.attachments = [try UNNotificationAttachment(identifier: "image", url: file, options: nil)]
            } catch let error as UNError where error.code == .attachmentCorrupt {
                bestAttempt.body = "refused: \((error as NSError).domain) \((error as NSError).code)"
            } catch {
                bestAttempt.body = "unexpected: \(error)"
            }
            contentHandler(bestAttempt)
        default:
            guard let string = request.content.userInfo["image"] as? String, let url = URL(string: string) else {
                contentHandler(bestAttempt)
                return
            }
            URLSession.shared.downloadTask(with: url) { location, response, error in
                if let location, (response as? HTTPURLResponse)?.statusCode == 200 {
                    let file = location.deletingPathExtension().appendingPathExtension(url.pathExtension)
                    try? FileManager.default.moveItem(at: location, to: file)
                    if let attachment = try? UNNotificationAttachment(identifier: "image", url: file,
                                                                       options: [UNNotificationAttachmentOptionsThumbnailHiddenKey: false]) {
                        bestAttempt.attachments = [attachment]
                    }
                }
                contentHandler(bestAttempt)
            }.resume()
        }
    }

    override func serviceExtensionTimeWillExpire() {
        if answersExpiry, let contentHandler, let bestAttempt {
            bestAttempt.body += " (at expiry)"
            contentHandler(bestAttempt)
        }
    }
}
