// A notification service extension in a shape many teams ship: it downloads the push's image with URLSession and
// finishes on the main queue, where code that shares state with the rest of the extension, or calls an SDK that
// wants the main thread, often goes. It says in the body which threads it ran on (swift-main-thread.yaml checks).
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttempt = request.content.mutableCopy() as? UNMutableNotificationContent
        guard let bestAttempt, let string = request.content.userInfo["image"] as? String, let url = URL(string: string) else {
            contentHandler(request.content)
            return
        }
        let receivedOnMain = Thread.isMainThread
        URLSession.shared.downloadTask(with: url) { location, response, _ in
            var attachment: UNNotificationAttachment?
            if let location, (response as? HTTPURLResponse)?.statusCode == 200 {
                let file = location.deletingPathExtension().appendingPathExtension(url.pathExtension)
                try? FileManager.default.moveItem(at: location, to: file)
                attachment = try? UNNotificationAttachment(identifier: "image", url: file, options: nil)
            }
            DispatchQueue.main.async {
                if let attachment { bestAttempt.attachments = [attachment] }
                bestAttempt.body = "didReceive on main: \(receivedOnMain); handed over on main: \(Thread.isMainThread)"
                contentHandler(bestAttempt)
            }
        }.resume()
    }

    override func serviceExtensionTimeWillExpire() {
        if let contentHandler, let bestAttempt {
            bestAttempt.body = "expired; called on main: \(Thread.isMainThread)"
            contentHandler(bestAttempt)
        }
    }
}
