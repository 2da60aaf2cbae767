import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The rest of what iOS does to a Live Activity, through the real gateway and a real device over TLS: relevance
/// order, stale and dismissal dates sent by push, the budget of an app with frequent updates, and payloads the
/// gateway or the device refuses without losing the activity.
@Suite("Live Activities: order, stale, end by push, budget, refusals", .endToEnd)
struct LiveActivityLifecycleTests {
    /// Sends `aps` to `token` as a `liveactivity` push with `priority`; returns the answer and the delivery record.
    static func push(_ harness: GatewayHarness, _ control: ControlClient, token: String, priority: Int = 10,
                     aps: String) async throws -> (status: Int, reason: String?, record: [String: Any]?) {
        let client = try await harness.connect()
        defer { Task { await client.close() } }
        let apnsID = UUID().uuidString
        let response = try await client.send(.push(token: token, payload: #"{"aps":"# + aps + "}", headers: harness.headers(
            jwt: harness.jwt(), topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity",
            extra: [("apns-id", apnsID), ("apns-priority", "\(priority)")])))
        guard response.status == 200 else { return (response.status, response.reason, nil) }
        return (200, nil, try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
    }

    static func start(_ control: ControlClient, order: String) async throws -> (id: String, token: String) {
        let started = try await control.post("/v1/devices/device-1/activities", #"""
            {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"\#(order)"},
             "contentState":{"status":"packed","etaMinutes":40}}
            """#)
        let view = try #require(started.json as? [String: Any])
        return (try #require(view["id"] as? String), try #require(view["token"] as? String))
    }

    static func view(_ control: ControlClient, _ id: String) async throws -> [String: Any] {
        let listed = try #require(try await control.get("/v1/activities?device=device-1").json as? [[String: Any]])
        return try #require(listed.first { $0["id"] as? String == id })
    }

    static func seconds(_ date: Date) -> Int { Int(date.timeIntervalSince1970) }

    /// UNIX seconds as the control API writes times (``ControlJSON/dateStyle``).
    static func rfc3339(_ seconds: Int) -> String {
        Date(timeIntervalSince1970: Double(seconds)).formatted(ControlJSON.dateStyle)
    }

    @Test("relevance-score orders an app's activities (the highest in the Dynamic Island, ties by start); stale-date marks one stale until a later update; end by push keeps it until dismissal-date, a past one removes it at once")
    func orderStaleAndEnd() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let control = harness.control
                let first = try await Self.start(control, order: "A-1")
                harness.clock.advance(by: 1)  // the gateway's clock, moved by hand: the second starts a second later
                let second = try await Self.start(control, order: "A-2")
                #expect(try await Self.view(control, first.id)["displayRank"] as? Int == 1, "same score: the one started first")
                #expect(try await Self.view(control, second.id)["displayRank"] as? Int == 2)

                let ranked = try await Self.push(harness, control, token: second.token, aps: """
                    {"event":"update","timestamp":1800000010,"relevance-score":50,"content-state":{"status":"on the way","etaMinutes":20}}
                    """)
                #expect((ranked.record?["activity"] as? [String: Any])?["result"] as? String == "applied")
                #expect(try await Self.view(control, second.id)["displayRank"] as? Int == 1, "the higher score goes first")
                #expect(try await Self.view(control, first.id)["displayRank"] as? Int == 2)

                // stale-date: not stale before it, stale from it (the gateway's clock), fresh again with a later one.
                let staleAt = harness.clock.now.addingTimeInterval(60)
                _ = try await Self.push(harness, control, token: first.token, aps: """
                    {"event":"update","timestamp":1800000020,"stale-date":\(Self.seconds(staleAt)),"content-state":{"status":"late","etaMinutes":50}}
                    """)
                #expect(try await Self.view(control, first.id)["stale"] as? Bool == false)
                harness.clock.advance(by: 120)
                let stale = try await Self.view(control, first.id)
                #expect(stale["stale"] as? Bool == true)
                #expect((stale["contentState"] as? [String: Any])?["status"] as? String == "late")
                _ = try await Self.push(harness, control, token: first.token, aps: """
                    {"event":"update","timestamp":1800000030,"stale-date":\(Self.seconds(harness.clock.now) + 3600),"content-state":{"status":"moving","etaMinutes":30}}
                    """)
                #expect(try await Self.view(control, first.id)["stale"] as? Bool == false, "a later stale-date freshens it")

                // end by push with a dismissal date to come: ended, still on the Lock Screen until then.
                let dismissal = Self.seconds(harness.clock.now) + 3600
                let ended = try await Self.push(harness, control, token: second.token, aps: """
                    {"event":"end","timestamp":1800000040,"dismissal-date":\(dismissal),"content-state":{"status":"delivered","etaMinutes":0}}
                    """)
                let change = try #require(ended.record?["activity"] as? [String: Any])
                #expect(change["event"] as? String == "end" && change["result"] as? String == "ended")
                let endedView = try await Self.view(control, second.id)
                #expect(endedView["ended"] as? Bool == true && endedView["visible"] as? Bool == true)
                #expect(endedView["dismissalDate"] as? String == Self.rfc3339(dismissal))

                // end with a dismissal date already past: gone from the Lock Screen at once.
                _ = try await Self.push(harness, control, token: first.token, aps: """
                    {"event":"end","timestamp":1800000050,"dismissal-date":1700000000,"content-state":{"status":"cancelled","etaMinutes":0}}
                    """)
                harness.clock.advance(by: 1)  // the gateway's clock, set by hand, to the device's moment of the end or later
                let gone = try await Self.view(control, first.id)
                #expect(gone["ended"] as? Bool == true && gone["visible"] as? Bool == false)
                #expect(gone["displayRank"] == nil, "a dismissed activity has no place on the Lock Screen")
            }
        }
    }

    @Test("An app whose Info.plist sets NSSupportsLiveActivitiesFrequentUpdates has the larger budget; priority 5 is never throttled")
    func frequentUpdates() async throws {
        try await withGateway { harness in
            var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
            app.infoPlist = ["NSSupportsLiveActivitiesFrequentUpdates": .bool(true)]
            try await withDevice(harness, apps: [app], configure: { $0.activityBudget = ActivityBudget(perHour: 1, frequentPerHour: 3) }) { _ in
                let control = harness.control
                let activity = try await Self.start(control, order: "F-1")
                var results: [String] = []
                for (index, priority) in [10, 10, 10, 10, 5].enumerated() {
                    let sent = try await Self.push(harness, control, token: activity.token, priority: priority, aps: """
                        {"event":"update","timestamp":\(1800000000 + index),"content-state":{"status":"step \(index)","etaMinutes":\(index)}}
                        """)
                    results.append((sent.record?["activity"] as? [String: Any])?["result"] as? String ?? "none")
                }
                #expect(results == ["applied", "applied", "applied", "throttled", "applied"], "3 an hour with frequent updates, not 1")
                let devices = try #require(try await control.get("/v1/devices").json as? [[String: Any]])
                let budget = try #require((devices.first?["apps"] as? [[String: Any]])?.first?["activityBudget"] as? [String: Any])
                #expect(budget["perHour"] as? Int == 3 && budget["remaining"] as? Int == 0, "\(budget)")
                let state = try await Self.view(control, activity.id)["contentState"] as? [String: Any]
                #expect(state?["status"] as? String == "step 4", "the priority-5 update applied past the spent budget")
            }
        }
    }

    @Test("A Live Activity payload over 4096 bytes answers 413; one the device cannot read is refused naming the key; the activity keeps its state")
    func refusedPayloads() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let control = harness.control
                let activity = try await Self.start(control, order: "R-1")
                let padding = String(repeating: "x", count: 4100)
                let large = try await Self.push(harness, control, token: activity.token, aps: """
                    {"event":"update","timestamp":1800000000,"content-state":{"status":"\(padding)","etaMinutes":1}}
                    """)
                #expect(large.status == 413 && large.reason == "PayloadTooLarge")

                let noEvent = try await Self.push(harness, control, token: activity.token, aps: """
                    {"timestamp":1800000010,"content-state":{"status":"x","etaMinutes":1}}
                    """)
                let change = try #require(noEvent.record?["activity"] as? [String: Any], "\(noEvent)")
                #expect(change["result"] as? String == "refused")
                #expect(change["reason"] as? String == "aps has no event (start, update or end)", "\(change)")

                let badDate = try await Self.push(harness, control, token: activity.token, aps: """
                    {"event":"update","timestamp":1800000020,"stale-date":"tomorrow","content-state":{"status":"x","etaMinutes":1}}
                    """)
                #expect(((badDate.record?["activity"] as? [String: Any])?["reason"] as? String)?.contains("stale-date") == true, "\(badDate)")

                let kept = try await Self.view(control, activity.id)
                #expect((kept["contentState"] as? [String: Any])?["status"] as? String == "packed")
                #expect(kept["ended"] as? Bool == false && kept["visible"] as? Bool == true)
            }
        }
    }
}
