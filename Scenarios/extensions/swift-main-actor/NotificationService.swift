// A notification service extension written with Swift concurrency: didReceive starts a main-actor task that
// downloads the push's image with async/await and hands the content over; a RunLoop.main timer supplies the
// subtitle first. The push's "hold" key makes it wait on the main actor for its expiry instead, which iOS calls on
// another thread. swift-main-thread.yaml checks each.
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        let bestAttempt = request.content.mutableCopy() as! UNMutableNotificationContent
        self.bestAttempt = bestAttempt
        let hold = request.content.userInfo["hold"] as? Bool ?? false
        let image = (request.content.userInfo["image"] as? String).flatMap(URL.init(string:))
        Timer.scheduledTimer(withTimeInterval: 0.05, repeats: false) { _ in
            bestAttempt.subtitle = "a main run loop timer fired"
            Task { @MainActor in
                if hold {
                    bestAttempt.body = "held on the main actor"
                    return  // serviceExtensionTimeWillExpire hands it over
                }
                if let image, let attachment = await Self.attachment(from: image) {
                    bestAttempt.attachments = [attachment]
                }
                bestAttempt.body = "attached on the main actor: \(Thread.isMainThread)"
                contentHandler(bestAttempt)
            }
        }
    }

    static func attachment(from url: URL) async -> UNNotificationAttachment? {
        guard let (location, response) = try? await URLSession.shared.download(from: url),
              (response as? HTTPURLResponse)?.statusCode == 200 else { return nil }
        let file = location.deletingPathExtension().appendingPathExtension(url.pathExtension)
        try? FileManager.default.moveItem(at: location, to: file)
        return try? UNNotificationAttachment(identifier: "image", url: file, options: nil)
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttempt {
            bestAttempt.body += "; expiry on main: \(Thread.isMainThread)"
            contentHandler(bestAttempt)
        }
    }
}
