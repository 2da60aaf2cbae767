import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// The path each push takes on a device, without sockets.
@Suite("Notification centre")
struct NotificationListTests {
    static let token = DeviceToken(String(repeating: "cd", count: 32))!

    static func push(_ payload: String, type: PushType = .alert, collapseID: String? = nil, id: String,
                     bundleID: String = "com.example.app") -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: token, bundleID: bundleID, pushType: type, priority: 10,
              collapseID: collapseID, payload: payload)
    }

    @Test("An alert is displayed with its title, body, sound and thread")
    func alert() {
        var center = NotificationList()
        let receipts = center.receive(NotificationListTests.push(#"{"aps":{"alert":{"title":"T","body":"B"},"sound":"default","thread-id":"t1"}}"#, id: "1"))
        #expect(receipts.map(\.outcome) == [.displayed])
        #expect(receipts.first?.content?.title == "T")
        #expect(center.displayed.map(\.deliveryID) == ["1"])
        #expect(center.thread("t1", of: "com.example.app").count == 1)
    }

    @Test("A delivery sent again is answered as before while the memo of receipts has it; past the memo, one still on the list is shown once more and its receipt says so, counted per delivery, with no replaced receipt for itself")
    func shownAgain() {
        var center = NotificationList()
        let first = NotificationListTests.push(#"{"aps":{"alert":"once"}}"#, id: "d1")
        #expect(center.receive(first).first?.detail == nil)
        #expect(center.receive(first).map(\.outcome) == [.displayed], "the memo answers")
        for n in 0..<400 { _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"other"}}"#, id: "o\(n)", bundleID: "com.example.other")) }
        let again = center.receive(first)
        #expect(again.map(\.id) == ["d1"] && again.first?.outcome == .displayed)
        #expect(again.first?.detail?.hasPrefix(NotificationList.shownAgain) == true, "\(String(describing: again.first?.detail))")
        #expect(center.displayed.filter { $0.deliveryID == "d1" }.count == 1, "one notification on the list")
    }

    @Test("Each receipt says where its notification shows: app and thread, banner and list; a badge-only push shows nowhere")
    func presentation() {
        var center = NotificationList()
        let threaded = center.receive(NotificationListTests.push(#"{"aps":{"alert":"a","thread-id":"match-7"}}"#, id: "1"))
        #expect(threaded.first?.presentation == Presentation(bundleID: "com.example.app", thread: "match-7", banner: true, list: true))
        let plain = center.receive(NotificationListTests.push(#"{"aps":{"alert":"b","thread-id":""}}"#, id: "2"))
        #expect(plain.first?.presentation?.thread == nil, "an empty thread-id is no thread: grouped with the app's others")
        let badgeOnly = center.receive(NotificationListTests.push(#"{"aps":{"badge":2}}"#, id: "3"))
        #expect(badgeOnly.first?.outcome == .displayed)
        #expect(badgeOnly.first?.presentation == nil)
        center.foreground["com.example.app"] = [.list]
        let listOnly = center.receive(NotificationListTests.push(#"{"aps":{"alert":"c","thread-id":"match-7"}}"#, collapseID: "x", id: "4"))
        #expect(listOnly.first?.presentation == Presentation(bundleID: "com.example.app", thread: "match-7", banner: false, list: true),
                "in the foreground, what willPresent returned")
        center.foreground["com.example.app"] = nil
        let replacing = center.receive(NotificationListTests.push(#"{"aps":{"alert":"d"}}"#, collapseID: "x", id: "5"))
        #expect(replacing.map(\.outcome) == [.displayed, .replaced])
        #expect(replacing.last?.presentation?.thread == "match-7", "the replaced one keeps where it was shown")
        #expect(replacing.first?.presentation?.thread == nil)
    }

    @Test("The registered category a push names decides its buttons; one the app did not register shows none")
    func categoryButtons() {
        var center = NotificationList()
        let order = NotificationCategory(identifier: "ORDER", actions: (1...12).map { .init(identifier: "A\($0)", title: "Action \($0)") })
        let named = center.receive(NotificationListTests.push(#"{"aps":{"alert":"Shipped","category":"ORDER"}}"#, id: "1"), categories: [order])
        #expect(named.first?.content?.actions?.map(\.identifier) == (1...10).map { "A\($0)" }, "Apple: up to ten")
        let unknown = center.receive(NotificationListTests.push(#"{"aps":{"alert":"Hi","category":"OTHER"}}"#, id: "2"), categories: [order])
        #expect(unknown.first?.content?.category == "OTHER")
        #expect(unknown.first?.content?.actions == nil)
        let none = center.receive(NotificationListTests.push(#"{"aps":{"alert":"Hi"}}"#, id: "3"), categories: [order])
        #expect(none.first?.content?.actions == nil)
    }

    @Test("A push with the collapse ID of a displayed one replaces it; other apps keep theirs")
    func collapse() {
        var center = NotificationList()
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"first"}}"#, collapseID: "score", id: "1"))
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"other app"}}"#, collapseID: "score", id: "2", bundleID: "com.example.other"))
        let receipts = center.receive(NotificationListTests.push(#"{"aps":{"alert":"second"}}"#, collapseID: "score", id: "3"))
        #expect(receipts.map(\.outcome) == [.displayed, .replaced])
        #expect(receipts.last?.id == "1")
        #expect(center.displayed.map(\.deliveryID) == ["3", "2"])
    }

    @Test("Badge sets and 0 clears; a badge-only push shows no banner")
    func badge() {
        var center = NotificationList()
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"hi","badge":4}}"#, id: "1"))
        #expect(center.badges["com.example.app"] == 4)
        let receipts = center.receive(NotificationListTests.push(#"{"aps":{"badge":0}}"#, id: "2"))
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
        var center = NotificationList()
        #expect(center.receive(NotificationListTests.push(payload, type: type, id: "1")).map(\.outcome) == [outcome])
        #expect(center.displayed.isEmpty)
    }

    @Test("Mutable-content alerts show what the extension made of them; others show what was sent")
    func seam() {
        var center = NotificationList()
        let processed = (content: NotificationContent(body: "hi (modified)"),
                         run: ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "changed the body"))
        let modified = center.receive(NotificationListTests.push(#"{"aps":{"alert":"hi","mutable-content":1}}"#, id: "1"),
                                      processed: processed)
        #expect(modified.first?.content?.body == "hi (modified)")
        let plain = center.receive(NotificationListTests.push(#"{"aps":{"alert":"hi"}}"#, id: "2"), processed: processed)
        #expect(plain.first?.content?.body == "hi")
    }

    @Test("An unreadable payload is dropped with a reason")
    func unreadable() {
        var center = NotificationList()
        let receipts = center.receive(NotificationListTests.push("[1,2]", id: "1"))
        #expect(receipts.first?.outcome == .dropped)
        #expect(receipts.first?.detail?.isEmpty == false)
    }
}

@Suite("Notification centre: repeated pushes")
struct RepeatedPushTests {
    @Test("A push sent again (its ack was lost) gets the same receipt and is shown once")
    func resend() {
        var center = NotificationList()
        let push = NotificationListTests.push(#"{"aps":{"alert":"once"}}"#, id: "1")
        let first = center.receive(push)
        let again = center.receive(push)
        #expect(first == again)
        #expect(center.displayed.count == 1)
    }
}

@Suite("Notification centre: throttling and the foreground")
struct ThrottlingAndForegroundTests {
    static let background = #"{"aps":{"content-available":1}}"#

    @Test("Background pushes wake an app at most the budget per period; the clock decides, not a sleep")
    func throttling() {
        var center = NotificationList()
        center.backgroundBudget = .init(count: 3, period: 3600)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let outcomes = (0..<4).map { index in
            center.receive(NotificationListTests.push(Self.background, type: .background, id: "b\(index)"),
                           now: start.addingTimeInterval(Double(index) * 60)).first!.outcome
        }
        #expect(outcomes == [.background, .background, .background, .dropped])
        let otherApp = center.receive(NotificationListTests.push(Self.background, type: .background, id: "o1", bundleID: "com.example.other"),
                                      now: start.addingTimeInterval(300))
        #expect(otherApp.first?.outcome == .background, "the budget is per app")
        let later = center.receive(NotificationListTests.push(Self.background, type: .background, id: "b9"),
                                   now: start.addingTimeInterval(3601))
        #expect(later.first?.outcome == .background, "an hour after the first wake there is room again")

        var unlimited = NotificationList()
        unlimited.backgroundBudget = nil
        let all = (0..<10).map { unlimited.receive(NotificationListTests.push(Self.background, type: .background, id: "u\($0)"), now: start) }
        #expect(all.allSatisfy { $0.first?.outcome == .background })
    }

    @Test("An app in the foreground shows what its willPresent allows", arguments: [
        ("", DeliveryOutcome.suppressed),
        ("sound,badge", DeliveryOutcome.suppressed),
        ("banner", DeliveryOutcome.displayed),
        ("list", DeliveryOutcome.displayed),
    ])
    func foreground(_ options: String, _ outcome: DeliveryOutcome) {
        var center = NotificationList()
        center.foreground["com.example.app"] = Set(options.split(separator: ",").compactMap { PresentationOption(rawValue: String($0)) })
        let receipts = center.receive(NotificationListTests.push(#"{"aps":{"alert":"hi"}}"#, id: "1"))
        #expect(receipts.first?.outcome == outcome)
        #expect(center.displayed.count == (outcome == .displayed ? 1 : 0))
    }
}

@Suite("Notification list: Live Activities")
struct LiveActivityTests {
    @Test("Updates replace the activity's content-state; end removes it")
    func activityState() {
        var list = NotificationList()
        let update = list.receive(NotificationListTests.push(#"{"aps":{"event":"update","timestamp":1,"content-state":{"score":"2-1"}}}"#,
                                                              type: .liveactivity, id: "1"))
        #expect(update.first?.outcome == .liveactivity)
        #expect(update.first?.detail?.contains(#""score":"2-1""#) == true)
        #expect(list.activities["com.example.app"] == .object(["score": .string("2-1")]))
        _ = list.receive(NotificationListTests.push(#"{"aps":{"event":"end","timestamp":2,"content-state":{"score":"3-1"}}}"#,
                                                     type: .liveactivity, id: "2"))
        #expect(list.activities["com.example.app"] == nil)
    }

    static let activityToken = DeviceToken(String(repeating: "cd", count: 80))!

    static func activityPush(_ aps: String, id: String) -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: activityToken, bundleID: "com.example.app", pushType: .liveactivity, priority: 10,
              collapseID: nil, payload: #"{"aps":"# + aps + "}")
    }

    @Test("A push to an activity's token applies by ActivityKit's rules, and its receipt carries the activity")
    func activityToken() throws {
        var list = NotificationList()
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        list.start(LiveActivity(id: "A1", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                                attributes: ["orderID": .string("42")], contentState: ["status": .string("packed")],
                                startedAt: started, pushToken: Self.activityToken))
        let update = list.receive(Self.activityPush(#"{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way"}}"#, id: "1"),
                                  now: started + 60)
        #expect(update.first?.outcome == .liveactivity)
        #expect(update.first?.detail == "Live Activity A1 update: applied")
        #expect(update.first?.activity?.contentState["status"] == .string("on the way"))
        #expect(list.liveActivities["A1"]?.contentState["status"] == .string("on the way"))
        #expect(list.activities.isEmpty, "a push to an activity's own token is not the app-wide fallback")

        let late = list.receive(Self.activityPush(#"{"event":"update","timestamp":1800000030,"content-state":{"status":"packed"}}"#, id: "2"),
                                now: started + 61)
        #expect(late.first?.detail?.contains("ignored the update: its timestamp") == true, "\(late.first?.detail ?? "")")
        #expect(list.liveActivities["A1"]?.contentState["status"] == .string("on the way"))

        let bad = list.receive(Self.activityPush(#"{"event":"update","content-state":{"status":"x"}}"#, id: "3"), now: started + 62)
        #expect(bad.first?.detail == "Live Activity A1 refused the push: aps has no timestamp")
        #expect(list.liveActivities["A1"]?.isEnded == false, "a bad push loses nothing")

        let alerting = list.receive(Self.activityPush(#"{"event":"update","timestamp":1800000090,"content-state":{"status":"nearby"},"alert":{"title":"Nearby","body":"5 minutes away"}}"#, id: "3a"),
                                    now: started + 90)
        #expect(alerting.first?.content?.title == "Nearby", "an update's alert is recorded like an alert")
        #expect(update.first?.content == nil, "an update without one shows nothing but the activity")
        let end = list.receive(Self.activityPush(#"{"event":"end","timestamp":1800000100,"dismissal-date":1800000200}"#, id: "4"),
                               now: started + 100)
        #expect(end.first?.detail == "Live Activity A1 ended")
        #expect(end.first?.activity?.dismissalDate == started + 200)
    }

    @Test("Priority-10 updates past the app's budget are throttled, priority 5 never; a state the app's type would not decode is refused")
    func activityBudgetAndType() throws {
        var list = NotificationList()
        list.activityBudget = ActivityBudget(perHour: 2, frequentPerHour: 3)
        let started = Date(timeIntervalSince1970: 1_800_000_000)
        list.start(LiveActivity(id: "A1", bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                                contentState: ["status": .string("packed"), "etaMinutes": .number(40)], startedAt: started,
                                pushToken: Self.activityToken))
        var app = AppManifest.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: started)
        app.activityTypes = [ActivityAttributesType(name: "DeliveryAttributes", attributes: [:],
                                                    contentState: ["status": .init(.string), "etaMinutes": .init(.int)])]
        func update(_ id: String, eta: String, priority: Int = 10) -> String {
            var push = Self.activityPush(#"{"event":"update","timestamp":1800000010,"content-state":{"status":"s","etaMinutes":"# + eta + "}}", id: id)
            push.priority = priority
            return list.receive(push, now: started + 10, app: app).first?.detail ?? ""
        }
        #expect(update("1", eta: "30") == "Live Activity A1 update: applied")
        #expect(update("2", eta: "20") == "Live Activity A1 update: applied")
        #expect(update("3", eta: "10").hasPrefix("Live Activity A1 throttled the update: com.example.app has had its 2 priority-10 updates this hour"))
        #expect(list.liveActivities["A1"]?.contentState["etaMinutes"] == .number(20), "a throttled update is not applied")
        #expect(update("4", eta: "5", priority: 5) == "Live Activity A1 update: applied", "priority 5 is never throttled")
        #expect(update("5", eta: "\"soon\"", priority: 5)
                == #"Live Activity A1 refused the push: content-state does not decode as DeliveryAttributes.ContentState: etaMinutes is "soon", not an Int"#)
        app.infoPlist = ["NSSupportsLiveActivitiesFrequentUpdates": .bool(true)]
        #expect(update("6", eta: "4") == "Live Activity A1 update: applied", "frequent updates: a larger budget")
        #expect(update("7", eta: "3").contains("has had its 3 priority-10 updates this hour"))
    }

    @Test("The limit is each app's: one app's flood leaves another app's notifications in the list")
    func boundedPerApp() {
        var center = NotificationList()
        center.displayedLimit = 4
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"quiet"}}"#, id: "q1", bundleID: "com.example.quiet"))
        _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"quiet"}}"#, collapseID: "c", id: "q2", bundleID: "com.example.quiet"))
        for number in 0..<40 {
            _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"n"}}"#, id: "\(number)"))
        }
        #expect(center.displayed.filter { $0.bundleID == "com.example.quiet" }.map(\.deliveryID) == ["q2", "q1"])
        let flooded = center.displayed.filter { $0.bundleID == "com.example.app" }.map(\.deliveryID)
        #expect((4...5).contains(flooded.count))
        #expect(flooded == (40 - flooded.count..<40).reversed().map(String.init), "the newest stay, newest first")
        let replaced = center.receive(NotificationListTests.push(#"{"aps":{"alert":"again"}}"#, collapseID: "c", id: "q3",
                                                                  bundleID: "com.example.quiet"))
        #expect(replaced.map(\.outcome) == [.displayed, .replaced], "the quiet app's notification is still there to replace")
    }

    @Test("The list keeps at most its limit, newest first, and still replaces by collapse ID")
    func bounded() {
        var center = NotificationList()
        center.displayedLimit = 8
        for number in 0..<50 {
            _ = center.receive(NotificationListTests.push(#"{"aps":{"alert":"n"}}"#, id: "\(number)"))
            #expect(center.displayed.count <= 10)
        }
        #expect(center.displayed.first?.deliveryID == "49")
        #expect(center.displayed.count >= 8)
        #expect(center.displayed.map(\.deliveryID) == (50 - center.displayed.count..<50).reversed().map(String.init))
        let receipts = center.receive(NotificationListTests.push(#"{"aps":{"alert":"n"}}"#, collapseID: "c", id: "50"))
            + center.receive(NotificationListTests.push(#"{"aps":{"alert":"n"}}"#, collapseID: "c", id: "51"))
        #expect(receipts.map(\.outcome) == [.displayed, .displayed, .replaced])
    }
}
