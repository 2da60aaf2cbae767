@testable import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// The device owns its Live Activities and reports them (`activities`) after every change no receipt carries, so the
/// gateway shows them as the device has them and applies no rule of its own.
@Suite("Device state: Live Activity reports")
struct DeviceActivityReportTests {
    static let now = DeviceStateTests.now

    static func token(_ byte: String) -> DeviceToken { DeviceToken(String(repeating: byte, count: 32))! }

    static func activity(_ id: String, score: Double? = nil, startedAfter seconds: TimeInterval = 0) -> LiveActivity {
        LiveActivity(id: id, bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                     contentState: ["status": .string("packed")], startedAt: now + seconds,
                     pushToken: token(id == "A1" ? "a1" : "a2"), relevanceScore: score)
    }

    static func reports(_ actions: DeviceState.Actions) -> [DeviceLinkMessage.ActivityReport] {
        actions.send.compactMap { if case .activities(let report) = $0 { report } else { nil } }
    }

    static func update(_ id: String, token: DeviceToken, aps: String) -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: token, bundleID: "com.example.app", pushType: .liveactivity, priority: 5,
              collapseID: nil, payload: #"{"aps":\#(aps)}"#)
    }

    @Test("A start and an end by the app are each answered with the app's activities as the device has them; an unknown one's end too")
    func startAndEndAnswered() throws {
        var state = try DeviceStateTests.linkedAndRegistered()
        let started = try state.handle(.startActivity(.init(activity: Self.activity("A1"))), now: Self.now)
        #expect(Self.reports(started).map { $0.activities.map(\.id) } == [["A1"]])

        let ended = try state.handle(.endActivity(.init(id: "A1", bundleID: "com.example.app", contentState: ["status": .string("delivered")],
                                                        dismissalDate: nil, at: Self.now + 10)), now: Self.now + 10)
        let report = try #require(Self.reports(ended).first)
        #expect(report.activities.first?.endedAt == Self.now + 10)
        #expect(report.activities.first?.contentState["status"] == .string("delivered"))

        let again = try state.handle(.endActivity(.init(id: "A1", bundleID: "com.example.app", contentState: ["status": .string("lost")],
                                                        dismissalDate: nil, at: Self.now + 20)), now: Self.now + 20)
        #expect(Self.reports(again).first?.activities.first == report.activities.first, "an end applies once; the second changes nothing")

        let unknown = try state.handle(.endActivity(.init(id: "gone", bundleID: "com.example.app", contentState: nil, dismissalDate: nil,
                                                          at: Self.now)), now: Self.now)
        #expect(Self.reports(unknown).map(\.bundleID) == ["com.example.app"], "answered, so the gateway's request does not wait in vain")
    }

    @Test("A token given to an activity a push started is taken; the rest stays as the device has it")
    func tokenForAPushStart() throws {
        var state = try DeviceStateTests.linkedAndRegistered()
        _ = try state.handle(.startActivity(.init(activity: Self.activity("A1"))), now: Self.now)
        _ = try state.handle(.push(Self.update("p1", token: Self.token("a1"), aps: #"{"event":"update","timestamp":1800000005,"content-state":{"status":"moving"}}"#)),
                             now: Self.now + 5)
        var stale = Self.activity("A1")
        stale.pushToken = Self.token("c3")
        let answer = try state.handle(.startActivity(.init(activity: stale)), now: Self.now + 6)
        let kept = try #require(Self.reports(answer).first?.activities.first)
        #expect(kept.pushToken == Self.token("c3") && kept.contentState["status"] == .string("moving"))
    }

    @Test("A push that changes the order shown is reported before its receipt; one that does not, not at all")
    func reorderReported() throws {
        var state = try DeviceStateTests.linkedAndRegistered()
        _ = try state.handle(.startActivity(.init(activity: Self.activity("A1"))), now: Self.now)
        _ = try state.handle(.startActivity(.init(activity: Self.activity("A2", startedAfter: 1))), now: Self.now + 1)

        let same = try state.handle(.push(Self.update("p1", token: Self.token("a2"), aps: #"{"event":"update","timestamp":1800000002,"content-state":{"status":"moving"}}"#)),
                                    now: Self.now + 2)
        #expect(Self.reports(same).isEmpty)
        #expect(same.send.count == 1)

        let raised = try state.handle(.push(Self.update("p2", token: Self.token("a2"), aps: #"{"event":"update","timestamp":1800000003,"relevance-score":50,"content-state":{"status":"near"}}"#)),
                                      now: Self.now + 3)
        guard case .activities(let report) = raised.send.first, case .receipt = raised.send.last else {
            Issue.record("expected the report, then the receipt: \(raised.send.map(\.type))")
            return
        }
        #expect(report.activities.map(\.id) == ["A2", "A1"])
    }

    @Test("Linked again, an app with activities registers, then reports them (a gateway that restarted learns them)")
    func reportedOnLink() throws {
        var state = try DeviceStateTests.linkedAndRegistered()
        _ = try state.handle(.startActivity(.init(activity: Self.activity("A1"))), now: Self.now)
        state.unlinked()
        let linked = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now + 60)
        #expect(linked.send.map(\.type).prefix(2) == ["register", "activities"])
        #expect(Self.reports(linked).first?.activities.map(\.id) == ["A1"])
    }
}
