// An extension that shares an App Group with its app, as marketing SDKs do for badge counts, delivery receipts and
// cached media: the group's name comes from its Info.plist, the count from UserDefaults(suiteName:), a receipt is
// appended to a file in the group's container, and the image is downloaded into the container (or, without one, the
// temporary folder) and attached (docs/own-extensions.md, "App Groups").
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
        let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)
        if let container {
            let receipts = container.appendingPathComponent("receipts.txt")
            let lines = ((try? String(contentsOf: receipts, encoding: .utf8)) ?? "") + request.identifier + "\n"
            do {
                try lines.write(to: receipts, atomically: true, encoding: .utf8)
                content.subtitle = "\(lines.split(separator: "\n").count) receipts in the shared container"
            } catch {
                content.subtitle = "cannot write in the container: \(error)"
            }
        } else {
            content.subtitle = "no container for \(group)"
        }
        guard let address = request.content.userInfo["image"] as? String, let url = URL(string: address) else {
            return contentHandler(content)
        }
        let cache = (container ?? FileManager.default.temporaryDirectory).appendingPathComponent("Media")
        URLSession.shared.downloadTask(with: url) { location, _, _ in
            defer { contentHandler(content) }
            guard let location else { return }
            let file = cache.appendingPathComponent(UUID().uuidString).appendingPathExtension(url.pathExtension)
            try? FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            try? FileManager.default.moveItem(at: location, to: file)
            if let attachment = try? UNNotificationAttachment(identifier: "image", url: file) { content.attachments = [attachment] }
        }.resume()
    }
}
