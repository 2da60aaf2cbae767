// An extension that shares an App Group with its app, as marketing SDKs do for badge counts and delivery receipts:
// the group's name comes from its Info.plist, the count from UserDefaults(suiteName:), and a receipt is appended to
// a file in the group's container (docs/own-extensions.md, "App Groups").
import Foundation
import UserNotifications

class NotificationService: UNNotificationServiceExtension {
    override func didReceive(_ request: UNNotificationRequest,
                             withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
            return contentHandler(request.content)
        }
        guard let group = Bundle.main.object(forInfoDictionaryKey: "AppGroupName") as? String else {
            content.subtitle = "no AppGroupName in Info.plist"
            return contentHandler(content)
        }
        if let defaults = UserDefaults(suiteName: group) {
            let count = defaults.integer(forKey: "badgeCount") + 1
            defaults.set(count, forKey: "badgeCount")
            content.badge = NSNumber(value: count)
        }
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            content.subtitle = "no container for \(group)"
            return contentHandler(content)
        }
        let receipts = container.appendingPathComponent("receipts.txt")
        let earlier = (try? String(contentsOf: receipts, encoding: .utf8)) ?? ""
        let lines = earlier + request.identifier + "\n"
        do {
            try lines.write(to: receipts, atomically: true, encoding: .utf8)
            content.subtitle = "\(lines.split(separator: "\n").count) receipts in the shared container"
        } catch {
            content.subtitle = "cannot write in the container: \(error)"
        }
        contentHandler(content)
    }
}
