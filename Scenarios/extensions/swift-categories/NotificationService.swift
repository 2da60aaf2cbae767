// An extension that registers a category per message from the payload's buttons, as marketing SDKs do: it reads the
// app's categories, adds one named by the message's ID with the payload's buttons, sets them back, and names it as
// the notification's category, so the device shows those buttons (docs/service-extensions.md, "Categories").
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent,
              let messageID = request.content.userInfo["message_id"] as? String,
              let buttons = request.content.userInfo["buttons"] as? [[String: Any]] else {
            return contentHandler(request.content)
        }
        let actions: [UNNotificationAction] = buttons.compactMap { button in
            guard let id = button["id"] as? String, let title = button["title"] as? String else { return nil }
            if let placeholder = button["placeholder"] as? String {
                return UNTextInputNotificationAction(identifier: id, title: title, options: [], textInputButtonTitle: "Send",
                                                     textInputPlaceholder: placeholder)
            }
            return UNNotificationAction(identifier: id, title: title, options: button["opens_app"] as? Bool == true ? [.foreground] : [])
        }
        let center = UNUserNotificationCenter.current()
        center.getNotificationCategories { existing in
            var categories = existing.filter { $0.identifier != messageID }
            categories.insert(UNNotificationCategory(identifier: messageID, actions: actions, intentIdentifiers: [], options: []))
            center.setNotificationCategories(categories)
            content.categoryIdentifier = messageID
            content.body += " (\(existing.count) categories before)"
            contentHandler(content)
        }
    }
}
