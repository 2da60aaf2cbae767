import APNSimCore
import APNSimDevice
import Testing

/// The path each push takes on a device, without sockets.
@Suite("Notification centre")
struct NotificationCenterTests {
    static let token = DeviceToken(String(repeating: "cd", count: 32))!

    static func push(_ payload: String, type: PushType = .alert, collapseID: String? = nil, id: String,
                     bundleID: String = "com.example.app") -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: token, bundleID: bundleID, pushType: type, priority: 10,
              collapseID: collapseID, payload: payload)
    }

    @Test("An alert is displayed with its title, body, sound and thread")
    func alert() {
        var center = NotificationCenter()
        let receipts = center.receive(Self.push(#"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default","thread-id":"t1"}}"#, id: "1"))
        #expect(receipts.map(\.outcome) == [.displayed])
        #expect(receipts.first?.content?.title == "T")
        #expect(center.displayed.map(\.deliveryID) == ["1"])
        #expect(center.thread("t1", of: "com.example.app").count == 1)
    }

    @Test("A push with the collapse ID of a displayed one replaces it; other apps keep theirs")
    func collapse() {
        var center = NotificationCenter()
        _ = center.receive(Self.push(#"{"aps":{"alert":"first"}}"#, collapseID: "score", id: "1"))
        _ = center.receive(Self.push(#"{"aps":{"alert":"other app"}}"#, collapseID: "score", id: "2", bundleID: "com.example.other"))
        let receipts = center.receive(Self.push(#"{"aps":{"alert":"second"}}"#, collapseID: "score", id: "3"))
        #expect(receipts.map(\.outcome) == [.displayed, .replaced])
        #expect(receipts.last?.id == "1")
        #expect(center.displayed.map(\.deliveryID) == ["3", "2"])
    }

    @Test("Badge sets and 0 clears; a badge-only push shows no banner")
    func badge() {
        var center = NotificationCenter()
        _ = center.receive(Self.push(#"{"aps":{"alert":"hi","badge":4}}"#, id: "1"))
        #expect(center.badges["com.example.app"] == 4)
        let receipts = center.receive(Self.push(#"{"aps":{"badge":0}}"#, id: "2"))
        #expect(center.badges["com.example.app"] == nil)
        #expect(receipts.first?.outcome == .displayed)
        #expect(center.displayed.count == 1, "no banner for a badge-only push")
    }

    @Test("Background, VoIP and Live Activity pushes take their own paths and show nothing", arguments: [
        (#"{"aps":{"content-available":1}}"#, PushType.background, DeliveryOutcome.background),
        (#"{"aps":{"content-available":1},"sync":1}"#, PushType.alert, DeliveryOutcome.background),
        (#"{"aps":{},"call":"x"}"#, PushType.voip, DeliveryOutcome.voip),
        (#"{"aps":{"event":"update","content-state":{"score":1},"timestamp":1}}"#, PushType.liveactivity, DeliveryOutcome.liveactivity),
    ])
    func otherPaths(_ payload: String, _ type: PushType, _ outcome: DeliveryOutcome) {
        var center = NotificationCenter()
        #expect(center.receive(Self.push(payload, type: type, id: "1")).map(\.outcome) == [outcome])
        #expect(center.displayed.isEmpty)
    }

    @Test("Mutable-content alerts pass through the extension seam; others do not")
    func seam() {
        var center = NotificationCenter()
        center.modifyContent = { content, _ in
            var changed = content
            changed.body = (content.body ?? "") + " (modified)"
            return changed
        }
        let modified = center.receive(Self.push(#"{"aps":{"alert":"hi","mutable-content":1}}"#, id: "1"))
        #expect(modified.first?.content?.body == "hi (modified)")
        let plain = center.receive(Self.push(#"{"aps":{"alert":"hi"}}"#, id: "2"))
        #expect(plain.first?.content?.body == "hi")
    }

    @Test("An unreadable payload is dropped with a reason")
    func unreadable() {
        var center = NotificationCenter()
        let receipts = center.receive(Self.push("[1,2]", id: "1"))
        #expect(receipts.first?.outcome == .dropped)
        #expect(receipts.first?.detail?.isEmpty == false)
    }
}

@Suite("Notification centre: repeated pushes")
struct RepeatedPushTests {
    @Test("A push sent again (its ack was lost) gets the same receipt and is shown once")
    func resend() {
        var center = NotificationCenter()
        let push = NotificationCenterTests.push(#"{"aps":{"alert":"once"}}"#, id: "1")
        let first = center.receive(push)
        let again = center.receive(push)
        #expect(first == again)
        #expect(center.displayed.count == 1)
    }
}
