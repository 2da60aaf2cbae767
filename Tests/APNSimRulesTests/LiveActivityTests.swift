import APNSimRules
import Foundation
import Testing

@Suite("Live Activities: the rules iOS applies")
struct LiveActivityTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func push(_ json: String) throws -> ActivityPush {
        let root = try #require(JSONObjectSyntax.object(Array(json.utf8)))
        guard case .object(let aps)? = root["aps"] else { throw ActivityPushError("no aps") }
        return try ActivityPush(aps: aps)
    }

    static func delivery(orderID: String = "A-1") -> LiveActivity {
        LiveActivity(id: "act-1", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                     attributes: ["orderID": .string(orderID)], contentState: ["status": .string("packed"), "etaMinutes": .number(40)],
                     startedAt: now, timestamp: now)
    }

    static let deliveryType = ActivityAttributesType(name: "DeliveryAttributes", attributes: ["orderID": .init(.string)],
                                                     contentState: ["status": .init(.string), "etaMinutes": .init(.int)])

    @Test("A push-to-start payload reads whole: type, attributes, state, alert, input token or channel")
    func start() throws {
        let push = try Self.push(#"""
        {"aps":{"event":"start","timestamp":1800000000,"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A-1"},
         "content-state":{"status":"packed","etaMinutes":40},"alert":{"title":"Order A-1","body":"Packed"},
         "input-push-token":1,"stale-date":1800000600,"relevance-score":50}}
        """#)
        #expect(push.event == .start)
        #expect(push.attributesType == "DeliveryAttributes")
        #expect(push.attributes == ["orderID": .string("A-1")])
        #expect(push.contentState?["etaMinutes"] == .number(40))
        #expect(push.inputPushToken)
        #expect(push.inputPushChannel == nil)
        #expect(push.staleDate == Self.now + 600)
        #expect(push.relevanceScore == 50)
    }

    @Test("A payload that cannot be a Live Activity push is refused with a sentence naming the key", arguments: [
        (#"{"aps":{"timestamp":1,"content-state":{}}}"#, "aps has no event"),
        (#"{"aps":{"event":"pause","timestamp":1,"content-state":{}}}"#, #"aps.event is "pause", not start, update or end"#),
        (#"{"aps":{"event":"update","content-state":{}}}"#, "aps has no timestamp"),
        (#"{"aps":{"event":"update","timestamp":"soon","content-state":{}}}"#, #"aps.timestamp is "soon", not a time"#),
        (#"{"aps":{"event":"update","timestamp":1}}"#, "aps has no content-state, which update needs"),
        (#"{"aps":{"event":"update","timestamp":1,"content-state":[1]}}"#, "aps.content-state is [1], not an object"),
        (#"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes":{},"alert":"x"}}"#, "no attributes-type"),
        (#"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"T","alert":"x"}}"#, "no attributes,"),
        (#"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"T","attributes":{}}}"#, "no alert"),
        (#"{"aps":{"event":"end","timestamp":1,"dismissal-date":-5}}"#, "aps.dismissal-date is -5"),
    ])
    func refused(_ json: String, _ says: String) throws {
        do {
            _ = try Self.push(json)
            Issue.record("read \(json)")
        } catch {
            #expect("\(error)".contains(says), "\(error)")
        }
        // Read with the payload too (once for all the pushes of a broadcast), with the same refusal, when aps has an event.
        let payload = try PushPayload(json: Array(json.utf8))
        #expect((payload.activityPush == nil) == !json.contains(#""event""#))
        if case .failure(let error)? = payload.activityPush { #expect("\(error)".contains(says), "\(error)") }
        if case .success? = payload.activityPush { Issue.record("the payload read \(json)") }
    }

    @Test("A payload reads its Live Activity push with it, as ActivityPush reads aps")
    func readWithPayload() throws {
        let json = #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"status":"late"},"stale-date":1800000600}}"#
        #expect(try PushPayload(json: Array(json.utf8)).activityPush?.get() == (try Self.push(json)))
        #expect(try PushPayload(json: Array(#"{"aps":{"alert":"hi"}}"#.utf8)).activityPush == nil)
    }

    @Test("An update replaces the state; one older than the last applied is ignored; the same timestamp applies")
    func ordering() throws {
        var activity = Self.delivery()
        let update = try Self.push(#"{"aps":{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}}"#)
        let applied = activity.apply(update, now: Self.now + 61)
        #expect(applied == .updated)
        #expect(activity.contentState["status"] == .string("on the way"))
        let late = try Self.push(#"{"aps":{"event":"update","timestamp":1800000030,"content-state":{"status":"packed","etaMinutes":40}}}"#)
        guard case .ignored(let why) = activity.apply(late, now: Self.now + 62) else { Issue.record("applied"); return }
        #expect(why.contains("older than the last applied"))
        #expect(activity.contentState["status"] == .string("on the way"), "the newer state stays")
        let same = try Self.push(#"{"aps":{"event":"update","timestamp":1800000060,"content-state":{"status":"nearby","etaMinutes":5}}}"#)
        let appliedSame = activity.apply(same, now: Self.now + 63)
        #expect(appliedSame == .updated)
    }

    @Test("stale-date marks it stale from then; a later update with a new stale-date freshens it")
    func stale() throws {
        var activity = Self.delivery()
        let update = try Self.push(#"{"aps":{"event":"update","timestamp":1800000010,"stale-date":1800000100,"content-state":{"status":"s","etaMinutes":1}}}"#)
        _ = activity.apply(update, now: Self.now + 10)
        #expect(!activity.isStale(at: Self.now + 99))
        #expect(activity.isStale(at: Self.now + 100))
        let fresh = try Self.push(#"{"aps":{"event":"update","timestamp":1800000200,"stale-date":1800000900,"content-state":{"status":"s","etaMinutes":1}}}"#)
        _ = activity.apply(fresh, now: Self.now + 200)
        #expect(!activity.isStale(at: Self.now + 200))
    }

    @Test("end keeps it visible until dismissal-date, four hours without one, not at all with a past one; then nothing applies")
    func end() throws {
        var named = Self.delivery()
        let ended = named.apply(try Self.push(#"{"aps":{"event":"end","timestamp":1800000100,"dismissal-date":1800000700}}"#), now: Self.now + 100)
        #expect(ended == .ended)
        #expect(named.isVisible(at: Self.now + 699) && !named.isVisible(at: Self.now + 700))
        var unnamed = Self.delivery()
        _ = unnamed.apply(try Self.push(#"{"aps":{"event":"end","timestamp":1800000100,"content-state":{"status":"delivered","etaMinutes":0}}}"#), now: Self.now + 100)
        #expect(unnamed.contentState["status"] == .string("delivered"), "an end may carry the final state")
        #expect(unnamed.dismissalDate == Self.now + 100 + 4 * 3600)
        var past = Self.delivery()
        _ = past.apply(try Self.push(#"{"aps":{"event":"end","timestamp":1800000100,"dismissal-date":1000}}"#), now: Self.now + 100)
        #expect(!past.isVisible(at: Self.now + 100))
        let after = try Self.push(#"{"aps":{"event":"update","timestamp":1800000200,"content-state":{"status":"x","etaMinutes":1}}}"#)
        guard case .ignored(let why) = named.apply(after, now: Self.now + 200) else { Issue.record("applied after the end"); return }
        #expect(why.contains("ended"))
    }

    @Test("An activity still running eight hours after it started ends then, and stays four hours more")
    func eightHours() {
        var activity = Self.delivery()
        let early = activity.age(now: Self.now + 8 * 3600 - 1)
        #expect(!early)
        let late = activity.age(now: Self.now + 9 * 3600)
        #expect(late)
        #expect(activity.endedAt == Self.now + 8 * 3600)
        #expect(activity.isVisible(at: Self.now + 12 * 3600 - 1) && !activity.isVisible(at: Self.now + 12 * 3600))
        let again = activity.age(now: Self.now + 13 * 3600)
        #expect(!again, "it ends once")
    }

    @Test("The budget allows its count of priority-10 updates an hour, more with frequent updates, and refills as the hour passes")
    func budget() {
        let budget = ActivityBudget(perHour: 3, frequentPerHour: 5)
        var spending = ActivityBudget.Spending()
        let first = (0..<3).map { minute in spending.spend(of: budget, frequent: false, at: Self.now + Double(minute * 60)) }
        #expect(first == [true, true, true])
        let fourth = spending.spend(of: budget, frequent: false, at: Self.now + 300)
        #expect(!fourth, "the fourth in the hour is throttled")
        #expect(spending.remaining(of: budget, frequent: true, at: Self.now + 300) == 2)
        let frequent = spending.spend(of: budget, frequent: true, at: Self.now + 300)
        #expect(frequent, "an app with frequent updates has more")
        let full = spending.spend(of: budget, frequent: false, at: Self.now + 3600 + 1)
        #expect(!full, "an hour after the first, the three since are still within the hour")
        let refilled = spending.spend(of: budget, frequent: false, at: Self.now + 3600 + 121)
        #expect(refilled, "once the first three are an hour old, one is free again")
        #expect(ActivityBudget() == ActivityBudget(perHour: 15, frequentPerHour: 240))
        let report = ActivityBudget.Report(bundleID: "com.example.app", perHour: 3, spent: spending.times)
        #expect(spending.times == [Self.now + 300, Self.now + 3600 + 121], "what the last hour spent")
        #expect(report.remaining(at: Self.now + 3600 + 121) == 1)
        #expect(report.remaining(at: Self.now + 2 * 3600) == 2, "the one spent at 300 s is an hour old, and back")
    }

    @Test("Content states and attributes are checked against the declared type, naming the field")
    func declaredType() {
        let type = Self.deliveryType
        #expect(type.contentStateProblem(["status": .string("packed"), "etaMinutes": .number(40), "extra": .bool(true)]) == nil)
        #expect(type.contentStateProblem(["status": .string("packed")])
                == "content-state does not decode as DeliveryAttributes.ContentState: etaMinutes is missing")
        #expect(type.contentStateProblem(["status": .number(1), "etaMinutes": .number(4)])
                == "content-state does not decode as DeliveryAttributes.ContentState: status is 1, not a String")
        #expect(type.contentStateProblem(["status": .string("s"), "etaMinutes": .number(4.5)])?.contains("etaMinutes is 4.5, not an Int") == true)
        #expect(type.contentStateProblem([:]) == "content-state does not decode as DeliveryAttributes.ContentState: etaMinutes is missing",
                "two problems: always the first in key order")
        #expect(type.attributesProblem([:]) == "attributes do not decode as DeliveryAttributes: orderID is missing")
        #expect(ActivityAttributesType.Field(swiftType: "Int?") == .init(.int, optional: true))
        #expect(ActivityAttributesType.Field(swiftType: "UUID") == nil)
    }

    @Test("An app's visible activities go highest relevance-score first (none is 0), ties by start; dismissed ones have no place in the order shown and keep theirs in the one reported")
    func displayOrder() {
        func activity(_ id: String, app: String = "com.example.app", startedAfter seconds: TimeInterval, score: Double? = nil) -> LiveActivity {
            var activity = Self.delivery()
            (activity.id, activity.bundleID, activity.startedAt, activity.relevanceScore) = (id, app, Self.now + seconds, score)
            return activity
        }
        var dismissed = activity("gone", startedAfter: 0, score: 100)
        dismissed.end(at: Self.now, dismissal: Self.now)
        let mine = [activity("late", startedAfter: 30), activity("early", startedAfter: 10), activity("scored", startedAfter: 20, score: 25),
                    activity("negative", startedAfter: 0, score: -1), dismissed]
        #expect(LiveActivity.displayOrder(mine, at: Self.now + 60).map(\.id) == ["scored", "early", "late", "negative"])
        #expect(LiveActivity.displaySequence(mine).map(\.id) == ["gone", "scored", "early", "late", "negative"],
                "the sequence a device reports keeps the dismissed one in its place")
    }
}
