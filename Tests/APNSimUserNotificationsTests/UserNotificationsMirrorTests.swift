import APNSimUserNotifications
import Foundation
import Testing

/// apnsim's UserNotifications behaves as Apple's does where an extension can tell: copies, attachment checks and
/// their errors, and the payload's values in `userInfo`.
@Suite("UserNotifications mirror")
struct UserNotificationsMirrorTests {
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scenarios/media")

    @Test("mutableCopy() gives a UNMutableNotificationContent with every value, and changing it leaves the original")
    func mutableCopy() throws {
        let original = UNMutableNotificationContent()
        original.title = "Sale"
        original.body = "50% off"
        original.badge = 3
        original.userInfo = ["_mediaAlt": "alt"]
        let frozen = try #require(original.copy() as? UNNotificationContent)
        #expect(!(frozen is UNMutableNotificationContent))
        let copy = try #require(frozen.mutableCopy() as? UNMutableNotificationContent)
        #expect(copy.title == "Sale" && copy.body == "50% off" && copy.badge == 3)
        #expect(copy.userInfo["_mediaAlt"] as? String == "alt")
        copy.body = "changed"
        #expect(frozen.body == "50% off")
    }

    @Test("An attachment of a supported file is typed by its extension or its type hint")
    func attachment() throws {
        let jpeg = try UNNotificationAttachment(identifier: "image", url: Self.media.appendingPathComponent("sample.jpg"))
        #expect(jpeg.type == "public.jpeg" && jpeg.identifier == "image")
        let unnamed = try Self.copy("sample.jpg", as: "image")
        let hinted = try UNNotificationAttachment(identifier: "", url: unnamed,
                                                  options: [UNNotificationAttachmentOptionsTypeHintKey: "public.jpeg"])
        #expect(hinted.type == "public.jpeg")
        #expect(!hinted.identifier.isEmpty, "an empty identifier gets a UUID, as on iOS")
    }

    @Test("UNNotificationAttachment throws UNError in UNErrorDomain with Apple's codes",
          arguments: [("missing.jpg", UNError.Code.attachmentInvalidURL), ("sample.txt", .attachmentUnrecognizedType),
                      ("png-as.jpg", .attachmentCorrupt), ("huge.gif", .attachmentInvalidFileSize)])
    func refusals(_ name: String, _ code: UNError.Code) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("un-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("text".utf8).write(to: folder.appendingPathComponent("sample.txt"))
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: folder.appendingPathComponent("png-as.jpg"))
        try (Data("GIF89a".utf8) + Data(count: 10_000_001)).write(to: folder.appendingPathComponent("huge.gif"))
        do {
            _ = try UNNotificationAttachment(identifier: "x", url: folder.appendingPathComponent(name), options: nil)
            Issue.record("\(name) was accepted")
        } catch let error as UNError {
            #expect(error.code == code)
            #expect((error as NSError).domain == UNErrorDomain && (error as NSError).code == code.rawValue)
        }
    }

    @Test("userInfo holds the payload's values as native Swift values, and goes back out as JSON")
    func userInfo() throws {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(#"""
            {"title": "t", "body": "b", "badge": 2, "sound": "default", "interruptionLevel": "time-sensitive",
             "userInfo": {"flag": true, "count": 3, "ratio": 0.5, "text": "x", "list": [1, "a"], "nested": {"off": false}}}
            """#.utf8)) as? [String: Any])
        let content = ServiceExtensionHost.content(fromWire: json)
        #expect(content.userInfo["flag"] as? Bool == true)
        #expect(content.userInfo["count"] as? Int == 3)
        #expect(content.userInfo["ratio"] as? Double == 0.5)
        #expect((content.userInfo["nested"] as? [String: Any])?["off"] as? Bool == false)
        #expect(content.interruptionLevel == .timeSensitive && content.sound?.name == "default" && content.badge == 2)
        let back = ServiceExtensionHost.wire(from: content)
        #expect(back["body"] as? String == "b" && back["interruptionLevel"] as? String == "time-sensitive")
        let data = try JSONSerialization.data(withJSONObject: back)
        #expect(String(decoding: data, as: UTF8.self).contains(#""flag":true"#))
    }

    static func copy(_ name: String, as newName: String) throws -> URL {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("un-\(UUID().uuidString)-\(newName)")
        try FileManager.default.copyItem(at: media.appendingPathComponent(name), to: target)
        return target
    }

    @Test("Categories an extension registers are read back, one per identifier, with their actions and options")
    func categories() async {
        let reply = UNTextInputNotificationAction(identifier: "REPLY", title: "Reply", options: [.authenticationRequired],
                                                  icon: UNNotificationActionIcon(systemImageName: "arrowshape.turn.up.left"),
                                                  textInputButtonTitle: "Send", textInputPlaceholder: "Message")
        let delete = UNNotificationAction(identifier: "DELETE", title: "Delete", options: [.destructive])
        let message = UNNotificationCategory(identifier: "MESSAGE", actions: [reply, delete], intentIdentifiers: [],
                                             hiddenPreviewsBodyPlaceholder: "New message", options: [.customDismissAction])
        let center = UNUserNotificationCenter.current()
        center.setNotificationCategories([message, UNNotificationCategory(identifier: "MESSAGE", actions: [reply, delete], intentIdentifiers: [],
                                                                            options: [.customDismissAction])])
        let read = await center.notificationCategories()
        #expect(read.count == 1)
        #expect(read.first?.actions.map(\.identifier) == ["REPLY", "DELETE"])
        #expect((read.first?.actions.first as? UNTextInputNotificationAction)?.textInputButtonTitle == "Send")
        #expect(read.first?.actions.last?.options == [.destructive])
        let settings = await center.notificationSettings()
        #expect(settings.authorizationStatus == .authorized && settings.alertSetting == .enabled)
        #expect(await center.deliveredNotifications().isEmpty)
    }
}

