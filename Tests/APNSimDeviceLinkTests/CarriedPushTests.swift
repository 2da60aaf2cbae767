import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// A broadcast to many devices of one process travels as `carry` frames and comes back as `receipts` frames
/// (docs/device-link.md, "Carried pushes"); each frame within the limit, each read as `Codable` reads it.
@Suite("Device link: carried pushes and their receipts")
struct CarriedPushTests {
    static let token = DeviceToken(String(repeating: "cd", count: 32))!

    static func push(_ index: Int, payload: String) -> DeviceLinkMessage.CarriedPush {
        .init(device: "fan-\(index)", body: .init(id: "P\(index)", apnsID: "A-1", token: token, bundleID: "com.example.sports",
                                                  pushType: .liveactivity, priority: 10, collapseID: nil, payload: payload,
                                                  channel: "Y2hhbm5lbA==", activity: "act-\(index)"))
    }

    static let scorePayload = #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"home":1,"away":"0 \"quoted\""}}}"#

    @Test("A broadcast's carried pushes write what they share once; pushes that share less are written whole; both read back whole, by hand and by Codable, in frames within the limit",
          arguments: [false, true])
    func carryFrames(mixed: Bool) throws {
        var pushes = (1...1_000).map { Self.push($0, payload: Self.scorePayload) }
        if mixed { pushes.append(Self.push(0, payload: String(repeating: "x", count: 5_000))) }
        let frames = DeviceLinkFraming.frame(.carry(.init(pushes: pushes)))
        var reader = DeviceLinkFraming.Reader()
        reader.append(frames)
        var read: [DeviceLinkMessage.CarriedPush] = []
        var count = 0
        while let message = try reader.next() {
            guard case .carry(let carry) = message else { Issue.record("not a carry: \(message.type)"); break }
            read += carry.pushes
            count += 1
        }
        #expect(read == pushes)
        #expect(count > 1, "a thousand pushes do not fit one frame")
        var decoded: [DeviceLinkMessage.CarriedPush] = []
        for body in DeviceLinkFraming.carryFrames(pushes) {
            #expect(body.count + 4 <= DeviceLinkFraming.maximumFrameLength)
            #expect(String(decoding: body, as: UTF8.self).contains(#""common":"#) == !mixed)
            guard case .carry(let carry) = try JSONDecoder().decode(DeviceLinkMessage.ToDevice.self, from: Data(body)) else {
                Issue.record("Codable reads no carry")
                continue
            }
            decoded += carry.pushes
        }
        #expect(decoded == pushes)
        let share = Array(pushes.prefix(100))
        let encoded = try JSONEncoder().encode(DeviceLinkMessage.ToDevice.carry(.init(pushes: share)))
        #expect(try JSONDecoder().decode(DeviceLinkMessage.ToDevice.self, from: encoded) == .carry(.init(pushes: share)), "Codable writes what it reads")
        #expect(String(decoding: encoded, as: UTF8.self).components(separatedBy: "timestamp").count == 2, "the payload once")
    }

    @Test("A carry whose common part is not what a push shares is an error naming it", arguments: [
        (#"{"type":"carry","common":3,"pushes":[]}"#, "a carry message's common is 3, not an object"),
        (#"{"type":"carry","common":{"apnsID":"A"},"pushes":[]}"#, "a carry message's pushType is missing"),
        (#"{"type":"carry","common":{"apnsID":"A","bundleID":"b","pushType":"liveactivity","priority":10,"payload":"{}"},"pushes":[{"device":"d","id":"P"}]}"#,
         "a carry message's token is missing"),
    ])
    func badCommon(_ body: String, _ message: String) {
        var reader = DeviceLinkFraming.Reader()
        reader.append(DeviceLinkFraming.framed(Array(body.utf8)))
        #expect { _ = try reader.next() } throws: { error in "\(error)".contains(message) }
    }

    @Test("Receipts of carried pushes read as the gateway keeps a receipt, each with its device")
    func receiptFrames() throws {
        let activity = LiveActivity(id: "act-1", bundleID: "com.example.sports", attributesType: "ScoreAttributes",
                                    attributes: ["homeTeam": .string("Lions")], contentState: ["home": .number(1)],
                                    startedAt: Date(timeIntervalSince1970: 1_800_000_000), channelID: "Y2hhbm5lbA==")
        let receipts = (1...400).map { index in
            DeviceLinkMessage.CarriedReceipt(device: "fan-\(index)", body: .init(
                id: "P\(index)", outcome: .liveactivity, content: nil, detail: "Live Activity act-1 update: applied", activity: activity))
        }
        let frames = DeviceLinkFraming.frame(.receipts(.init(receipts: receipts)))
        var reader = DeviceLinkFraming.Reader()
        reader.append(frames)
        var read: [CarriedReceivedReceipt] = []
        while let inbound = try reader.nextInbound() {
            guard case .receipts(let batch) = inbound else { Issue.record("not receipts: \(inbound)"); break }
            read += batch
        }
        #expect(read.map(\.device) == receipts.map(\.device))
        #expect(read.map(\.receipt) == receipts.map { ReceivedReceipt($0.body) })
    }

    /// The receipts a device process sends for a broadcast to `count` of its devices' activities: each names its own
    /// activity in its change, progress and detail. With `mixed`, three in the middle ignored it (a run of their own) and
    /// one had an alert (it shares with none).
    static func broadcastReceipts(_ count: Int, mixed: Bool) -> [DeviceLinkMessage.CarriedReceipt] {
        let score: [String: JSONValue] = ["home": .number(2), "away": .string("1 \"late\" é"), "period": .object(["n": .number(2)])]
        return (1...count).map { index in
            let activity = index % 7 == 0 ? "act-\(index) \"é\"\\" : "act-\(index)"
            let ignored = mixed && (400..<403).contains(index)
            var live = LiveActivity(id: activity, bundleID: "com.example.sports", attributesType: "ScoreAttributes", attributes: [:],
                                    contentState: ignored ? ["home": .number(1)] : score, startedAt: Date(timeIntervalSince1970: 1_800_000_000),
                                    timestamp: Date(timeIntervalSince1970: 1_800_000_060), channelID: "Y2hhbm5lbA==")
            live.staleDate = Date(timeIntervalSince1970: 1_800_003_600.5)
            let change = ActivityChange(id: activity, event: .update, result: ignored ? .ignored : .applied,
                                        reason: ignored ? "older than the last applied" : nil, before: ["home": .number(1)],
                                        after: live.contentState, channel: "Y2hhbm5lbA==")
            var receipt = DeviceLinkMessage.Receipt(id: "P\(index)", outcome: .liveactivity, content: nil,
                                                    detail: "Live Activity \(activity) update: \(ignored ? "ignored" : "applied")",
                                                    activityChange: change)
            receipt.activityProgress = live.progress
            if mixed && index == 700 { receipt.content = NotificationContent(title: "Goal!", body: "2–1") }
            return .init(device: "fan-\(index)", body: receipt)
        }
    }

    /// A receipt as the gateway keeps it, with its activity change and content apart, decoded: their text is as the
    /// writer ordered it.
    static func kept(_ receipt: ReceivedReceipt) throws -> (ReceivedReceipt, ActivityChange?, NotificationContent?) {
        var receipt = receipt
        let parts = (try receipt.activityChange?.decoded(), try receipt.content?.decoded())
        (receipt.activityChange, receipt.content) = (nil, nil)
        return (receipt, parts.0, parts.1)
    }

    @Test("A broadcast's receipts write what they share once, each with its own ID, detail and activity; receipts that share less are written whole; all read back whole, by the gateway and by Codable, in frames within the limit",
          arguments: [false, true])
    func sharedReceipts(mixed: Bool) throws {
        let receipts = Self.broadcastReceipts(1_000, mixed: mixed)
        let bodies = DeviceLinkFraming.receiptFrames(receipts)
        var decoded: [DeviceLinkMessage.CarriedReceipt] = []
        for body in bodies {
            #expect(body.count + 4 <= DeviceLinkFraming.maximumFrameLength)
            guard case .receipts(let batch) = try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(body)) else {
                Issue.record("Codable reads no receipts")
                continue
            }
            decoded += batch.receipts
        }
        #expect(decoded == receipts)
        let whole = bodies.map { String(decoding: $0, as: UTF8.self) }.filter { !$0.contains(#""common":"#) }
        #expect(whole.count == (mixed ? 1 : 0), "only the receipt with an alert shares with none")
        #expect(whole.allSatisfy { $0.contains("Goal!") })
        #expect(bodies.count == (mixed ? 5 : 2), "mixed: the three ignored, the one alone, and the three runs around them")
        #expect(bodies.reduce(0) { $0 + $1.count } < receipts.count * 140, "each receipt's own fields only, but for the first of each run")

        var reader = DeviceLinkFraming.Reader()
        reader.append(bodies.flatMap(DeviceLinkFraming.framed))
        var read: [CarriedReceivedReceipt] = []
        while let inbound = try reader.nextInbound() {
            guard case .receipts(let batch) = inbound else { Issue.record("not receipts: \(inbound)"); break }
            read += batch
        }
        #expect(read.map(\.device) == receipts.map(\.device))
        for (read, sent) in zip(read, receipts) {
            let (kept, change, content) = try Self.kept(read.receipt)
            #expect(kept == (try Self.kept(ReceivedReceipt(sent.body)).0))
            #expect(change == sent.body.activityChange && content == sent.body.content)
        }
        let share = Array(receipts.prefix(100))
        let encoded = try JSONEncoder().encode(DeviceLinkMessage.Written.receipts(.init(receipts: share)))
        #expect(try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: encoded) == .receipts(.init(receipts: share)), "Codable writes what it reads")
        #expect(String(decoding: encoded, as: UTF8.self).components(separatedBy: "staleDate").count == 2, "the progress once")
    }

    @Test("A receipts message whose common part or own fields are not a receipt's is an error naming them", arguments: [
        (#"{"type":"receipts","common":3,"receipts":[]}"#, "a receipts message's common is 3, not an object"),
        (#"{"type":"receipts","common":{"id":"P","outcome":"late"},"receipts":[]}"#, #"a receipt message's outcome is "late", not one of"#),
        (#"{"type":"receipts","common":{"id":"P","outcome":"liveactivity"},"receipts":[{"device":"d"}]}"#, "a receipts message's id is missing"),
        (#"{"type":"receipts","common":{"id":"P","outcome":"liveactivity"},"receipts":[{"id":"P"}]}"#, "a receipts message's device is missing"),
        (#"{"type":"receipts","common":{"id":"P","outcome":"liveactivity"},"receipts":[{"device":"d","id":"P","activityID":3}]}"#,
         "a receipts message's activityID is 3, not a string"),
        (#"{"type":"receipts","common":{"id":"P","outcome":"liveactivity"},"receipts":[{"device":"d","id":"P","detail":[]}]}"#,
         "a receipts message's detail is [], not a string"),
    ])
    func badSharedReceipts(_ body: String, _ message: String) {
        var reader = DeviceLinkFraming.Reader()
        reader.append(DeviceLinkFraming.framed(Array(body.utf8)))
        #expect { _ = try reader.nextInbound() } throws: { error in "\(error)".contains(message) }
    }

    @Test("A receipts message without a device, or with one that is not an object, is an error naming it", arguments: [
        (#"{"type":"receipts","receipts":[{"id":"P1","outcome":"liveactivity"}]}"#, "a receipts message's device is missing"),
        (#"{"type":"receipts","receipts":[3]}"#, "a receipts message's receipts is an array with an element that is not an object"),
        (#"{"type":"receipts"}"#, "a receipts message's receipts is missing"),
        (#"{"type":"carry","pushes":{}}"#, "a carry message's pushes is {}, not an array"),
    ])
    func badBatches(_ body: String, _ message: String) {
        var reader = DeviceLinkFraming.Reader()
        reader.append(DeviceLinkFraming.framed(Array(body.utf8)))
        #expect {
            if body.contains("carry") { _ = try reader.next() } else { _ = try reader.nextInbound() }
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("A Live Activity read by hand is the one JSONDecoder reads, whatever it holds; anything else reads as nothing")
    func liveActivityByHand() throws {
        var full = LiveActivity(id: "A \"1\"", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                                attributes: ["orderID": .string("é 🚀"), "n": .number(0.1)],
                                contentState: ["status": .string("on the way"), "etaMinutes": .number(20), "nested": .array([.null, .bool(true)])],
                                startedAt: Date(timeIntervalSince1970: 1_800_000_000.123_456), pushToken: Self.token,
                                timestamp: Date(timeIntervalSince1970: 1_800_000_060), staleDate: Date(timeIntervalSince1970: 1_800_003_600.5),
                                relevanceScore: 25.5)
        full.end(at: Date(timeIntervalSince1970: 1_800_000_100.25), dismissal: Date(timeIntervalSince1970: 1_800_009_000))
        let bare = LiveActivity(id: "B", bundleID: "b", attributesType: "T", attributes: [:], contentState: [:],
                                startedAt: Date(timeIntervalSinceReferenceDate: 0), channelID: "Y2g=")
        for activity in [full, bare] {
            let data = try JSONEncoder().encode(activity)
            let object = try #require(JSONObjectSyntax.object(Array(data)))
            #expect(LiveActivity(json: object) == activity)
            #expect(LiveActivity(json: object) == (try JSONDecoder().decode(LiveActivity.self, from: data)))
        }
        var object = try #require(JSONObjectSyntax.object(Array(try JSONEncoder().encode(full))))
        for (key, value) in [("startedAt", JSONValue.string("now")), ("pushToken", .string("xyz")), ("attributes", .array([])),
                             ("relevanceScore", .bool(true)), ("id", .null)] {
            var wrong = object
            wrong[key] = value
            #expect(LiveActivity(json: wrong) == nil, "\(key): \(value)")
        }
        object["somethingNew"] = .bool(true)
        #expect(LiveActivity(json: object) == full, "keys it does not have are ignored, as Codable ignores them")
    }
}
