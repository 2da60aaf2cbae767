// An extension that does not build, for swift-broken.yaml: the compiler's message, with this file and line,
// is why the app does not install.
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        let content = request.content.mutableCopy() as! UNMutableNotificationContent
        content.body = request.content.userInfo["alt"]
        contentHandler(content)
    }
}
