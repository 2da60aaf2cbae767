import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// Taps, buttons, replies and dismisses on a device's list, without sockets.
@Suite("Interactions on a device")
struct InteractionRuleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let category = NotificationCategory(identifier: "MESSAGE", actions: [
        .init(identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "Message")),
        .init(identifier: "like", title: "Like"),
    ], options: ["customDismissAction"])
    static let quiet = NotificationCategory(identifier: "QUIET", actions: [.init(identifier: "like", title: "Like")])

    /// A list showing push 1 (category MESSAGE, a plain url) and push 2 (category QUIET).
    static func list() -> NotificationList {
        var center = NotificationList()
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"Hi","category":"MESSAGE"},"url":"app://chat/1"}"#, id: "1"),
                           categories: [category, quiet])
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"Hey","category":"QUIET"}}"#, id: "2"), categories: [category, quiet])
        return center
    }

    static func interact(_ apnsID: String, _ action: String, text: String? = nil) -> DeviceLinkMessage.Interact {
        .init(id: "I-\(action)", apnsID: apnsID, action: action, text: text, at: now)
    }

    @Test("A tap: the notification leaves the list, and the app, launched, opens the payload's url")
    func tap() throws {
        var center = Self.list()
        let record = try center.interact(Self.interact("APNS-1", InteractionRecord.defaultAction), device: "d1",
                                         categories: [Self.category]).get()
        #expect(record.opened == "app://chat/1" && record.openedBy == "url")
        #expect(record.appState == "inactive" && record.delivered)
        #expect(record.deliveryID == "1" && record.at == Self.now)
        #expect(center.displayed.map(\.deliveryID) == ["2"])
        #expect(throws: InteractionRefusal.self, "tapped once, it is gone") {
            try center.interact(Self.interact("APNS-1", InteractionRecord.defaultAction), device: "d1", categories: [Self.category]).get()
        }
    }

    @Test("A reply carries its text; a reply to a button that takes none, or to a button not shown, changes nothing")
    func reply() throws {
        var center = Self.list()
        let refusals = [
            (Self.interact("APNS-1", "like", text: "hi"), "action like takes no text"),
            (Self.interact("APNS-1", "share"), "has no action share; its buttons are reply, like"),
            (Self.interact("APNS-1", InteractionRecord.defaultAction, text: "hi"), "only a text-input action takes text"),
            (Self.interact("APNS-9", InteractionRecord.defaultAction), "device d1 shows no notification of push APNS-9"),
        ]
        for (interact, sentence) in refusals {
            guard case .failure(let refusal) = center.interact(interact, device: "d1", categories: [Self.category]) else {
                Issue.record("\(interact) was not refused")
                continue
            }
            #expect(refusal.description.contains(sentence), "\(refusal)")
        }
        #expect(center.displayed.count == 2, "nothing changed")
        let record = try center.interact(Self.interact("APNS-1", "reply", text: "On my way"), device: "d1", categories: [Self.category]).get()
        #expect(record.text == "On my way" && record.action == "reply")
        #expect(record.appState == "background", "a button without the foreground option runs in the background")
        #expect(record.opened == nil, "a button opens the plain url only... never: the url is the tap's")
    }

    @Test("A dismiss reaches the app only when its category has customDismissAction; either way it leaves the list")
    func dismiss() throws {
        var center = Self.list()
        let told = try center.interact(Self.interact("APNS-1", InteractionRecord.dismissAction), device: "d1",
                                       categories: [Self.category, Self.quiet]).get()
        #expect(told.delivered)
        let untold = try center.interact(Self.interact("APNS-2", InteractionRecord.dismissAction), device: "d1",
                                         categories: [Self.category, Self.quiet]).get()
        #expect(!untold.delivered)
        #expect(untold.detail.contains("no customDismissAction"))
        #expect(center.displayed.isEmpty)
    }
}
