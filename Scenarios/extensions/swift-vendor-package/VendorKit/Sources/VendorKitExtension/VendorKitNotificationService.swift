// The vendor's base class: reads its payload (VendorKitPayload, the package's other target), downloads the media with
// async/await on the main actor, attaches it, and lets the app's subclass adjust the content before it is handed over.
import Foundation
import UserNotifications
import VendorKitPayload

open class VendorKitNotificationService: UNNotificationServiceExtension {
    private var contentHandler: ((UNNotificationContent) -> Void)?
    private var bestAttempt: UNMutableNotificationContent?
    private var download: Task<Void, Never>?

    /// Called with the content just before it is handed over; subclasses adjust it.
    open func prepare(_ content: UNMutableNotificationContent) {}

    open override func didReceive(_ request: UNNotificationRequest,
                                  withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else { return contentHandler(request.content) }
        bestAttempt = content
        guard let payload = VendorPayload(userInfo: request.content.userInfo) else { return deliver(content) }
        download = Task { @MainActor in
            if let (location, _) = try? await URLSession.shared.download(from: payload.media) {
                let file = location.deletingPathExtension().appendingPathExtension(payload.mediaType)
                try? FileManager.default.moveItem(at: location, to: file)
                if let attachment = try? UNNotificationAttachment(identifier: "vendorkit-media", url: file) {
                    content.attachments = [attachment]
                }
            }
            self.deliver(content)
        }
    }

    open override func serviceExtensionTimeWillExpire() {
        download?.cancel()
        if let bestAttempt { deliver(bestAttempt) }
    }

    private func deliver(_ content: UNMutableNotificationContent) {
        prepare(content)
        contentHandler?(content)
        contentHandler = nil
    }
}
