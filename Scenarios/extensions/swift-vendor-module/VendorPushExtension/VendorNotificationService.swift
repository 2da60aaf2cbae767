// A push vendor's extension module, VendorPushExtension, in the shape vendor SDKs ship one (written here for apnsim,
// not taken from any vendor): its base class reads the vendor's own payload key, downloads the media, attaches it,
// and gives the app's subclass one hook before the content is handed over. Teams add the module with Swift Package
// Manager and write a one-line subclass (../NotificationService/NotificationService.swift).
import UserNotifications

open class VendorNotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttempt: UNMutableNotificationContent?

    /// Called with the content just before it is handed over; subclasses adjust it.
    open func willDeliver(_ content: UNMutableNotificationContent) {}

    open override func didReceive(_ request: UNNotificationRequest,
                                  withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else { return }
        bestAttempt = content
        let vendor = request.content.userInfo["vendor"] as? [String: Any]
        guard let media = (vendor?["media"] as? String).flatMap(URL.init(string:)) else {
            deliver(content)
            return
        }
        URLSession.shared.downloadTask(with: media) { [weak self] location, _, _ in
            if let location {
                let file = location.deletingPathExtension().appendingPathExtension(media.pathExtension)
                try? FileManager.default.moveItem(at: location, to: file)
                if let attachment = try? UNNotificationAttachment(identifier: "vendor-media", url: file, options: nil) {
                    content.attachments = [attachment]
                }
            }
            self?.deliver(content)
        }.resume()
    }

    open override func serviceExtensionTimeWillExpire() {
        if let bestAttempt { deliver(bestAttempt) }
    }

    private func deliver(_ content: UNMutableNotificationContent) {
        willDeliver(content)
        contentHandler?(content)
        contentHandler = nil
    }
}
