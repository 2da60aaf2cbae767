import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Live Activities through the real gateway and a real device over TLS: an app starts one, a provider updates it by
/// its own push token.
@Suite("Live Activities end to end", .endToEnd)
struct LiveActivityDeliveryTests {
    static func update(_ harness: GatewayHarness, token: String, aps: String) async throws -> (ProviderResponse, String) {
        let client = try await harness.connect()
        defer { Task { await client.close() } }
        let apnsID = UUID().uuidString
        let response = try await client.send(.push(token: token, payload: #"{"aps":"# + aps + "}",
                                                   headers: harness.headers(jwt: harness.jwt(), topic: "com.example.app.push-type.liveactivity",
                                                                            pushType: "liveactivity", extra: [("apns-id", apnsID)])))
        return (response, apnsID)
    }

    @Test("An app starts an activity with a token of its own; updates apply in timestamp order; GET /v1/activities shows it")
    func startAndUpdate() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let control = harness.control
                let started = try await control.post("/v1/devices/device-1/activities", #"""
                    {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"A-1"},
                     "contentState":{"status":"packed","etaMinutes":40}}
                    """#)
                #expect(started.status == 201)
                let view = try #require(started.json as? [String: Any])
                let token = try #require(view["token"] as? String)
                #expect(token.count == 160, "80 bytes, as ActivityKit's tokens are")
                #expect(token != device.tokens["com.example.app"]?.hex)

                let (response, apnsID) = try await Self.update(harness, token: token,
                    aps: #"{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}"#)
                #expect(response.status == 200)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "liveactivity")
                #expect(record["detail"] as? String == "Live Activity \(view["id"] as? String ?? "") update: applied")

                let (_, lateID) = try await Self.update(harness, token: token,
                    aps: #"{"event":"update","timestamp":1800000030,"content-state":{"status":"packed","etaMinutes":40}}"#)
                let late = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: lateID))
                #expect((late["detail"] as? String)?.contains("ignored the update: its timestamp") == true, "\(late)")
                let change = try #require(late["activity"] as? [String: Any], "the record says what the push did to the activity")
                #expect(change["id"] as? String == view["id"] as? String)
                #expect(change["event"] as? String == "update" && change["result"] as? String == "ignored")
                #expect((change["reason"] as? String)?.contains("older than the last applied") == true)
                #expect((change["before"] as? [String: Any])?["status"] as? String == "on the way")
                #expect((change["after"] as? [String: Any])?["status"] as? String == "on the way")
                let applied = try #require(record["activity"] as? [String: Any])
                #expect(applied["result"] as? String == "applied")
                #expect((applied["before"] as? [String: Any])?["status"] as? String == "packed")
                #expect((applied["after"] as? [String: Any])?["status"] as? String == "on the way")

                let listed = try #require(try await control.get("/v1/activities?token=\(token)").json as? [[String: Any]])
                #expect(listed.count == 1)
                let state = try #require(listed.first?["contentState"] as? [String: Any])
                #expect(state["status"] as? String == "on the way", "the older update did not apply")
                #expect(listed.first?["attributesType"] as? String == "DeliveryAttributes")
                #expect(listed.first?["device"] as? String == "device-1")
                #expect(listed.first?["ended"] as? Bool == false && listed.first?["visible"] as? Bool == true)
                #expect(device.state(ofActivity: view["id"] as? String ?? "")?.contentState["etaMinutes"] == .number(20))

                // The app ends it: on the Lock Screen until the dismissal date; pushes after the end change nothing.
                let id = try #require(view["id"] as? String)
                let ended = try await control.post("/v1/activities/\(id)/end",
                                                   #"{"contentState":{"status":"delivered","etaMinutes":0},"dismissalDate":"2100-01-01T00:00:00Z"}"#)
                #expect(ended.status == 200)
                let endedView = try #require(ended.json as? [String: Any])
                #expect(endedView["ended"] as? Bool == true && endedView["visible"] as? Bool == true)
                #expect(endedView["dismissalDate"] as? String == "2100-01-01T00:00:00.000Z")
                let (_, afterID) = try await Self.update(harness, token: token,
                    aps: #"{"event":"update","timestamp":1800000090,"content-state":{"status":"lost","etaMinutes":99}}"#)
                let after = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: afterID))
                #expect((after["detail"] as? String)?.contains("iOS ignores pushes to an ended activity") == true, "\(after)")
                #expect(device.state(ofActivity: id)?.contentState["status"] == .string("delivered"))
                #expect(try await control.post("/v1/activities/nothing/end").status == 404)
            }
        }
    }

    @Test("Starting an activity on a device without the app, or one not connected, is an error naming it")
    func refusedStarts() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let control = harness.control
                let body = #"{"bundleID":"com.example.other","attributesType":"T","attributes":{},"contentState":{}}"#
                let noApp = try await control.post("/v1/devices/device-1/activities", body)
                #expect(noApp.status == 404)
                #expect((noApp.json as? [String: Any])?["error"] as? String == "device device-1 has no registered com.example.other; install it first")
                let noDevice = try await control.post("/v1/devices/nobody/activities", body)
                #expect(noDevice.status == 409)
                let bad = try await control.post("/v1/devices/device-1/activities", #"{"bundleID":"com.example.app"}"#)
                #expect(bad.status == 400)
                #expect(((bad.json as? [String: Any])?["error"] as? String)?.contains("attributesType") == true)
            }
        }
    }

    static let delivery = ActivityAttributesType(name: "DeliveryAttributes", attributes: ["orderID": .init(.string)],
                                                 contentState: ["status": .init(.string), "etaMinutes": .init(.int)])

    @Test("Declared types: a start of an unknown type or a bad state is refused; the device checks updates and throttles past the budget")
    func declaredTypesAndBudget() async throws {
        var world = TestWorld.make()
        world.apps["com.example.app"]?.activityTypes = [Self.delivery]
        try await withGateway(world: world) { harness in
            var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
            app.activityTypes = [Self.delivery]
            try await withDevice(harness, apps: [app], configure: { $0.activityBudget = ActivityBudget(perHour: 1, frequentPerHour: 2) }) { _ in
                let control = harness.control
                let unknown = try await control.post("/v1/devices/device-1/activities",
                    #"{"bundleID":"com.example.app","attributesType":"ScoreAttributes","attributes":{},"contentState":{}}"#)
                #expect(unknown.status == 422)
                #expect((unknown.json as? [String: Any])?["error"] as? String
                        == "com.example.app has no ActivityAttributes type ScoreAttributes; it declares DeliveryAttributes")
                let badState = try await control.post("/v1/devices/device-1/activities",
                    #"{"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"A-1"},"contentState":{"status":"packed"}}"#)
                #expect(badState.status == 422)
                #expect((badState.json as? [String: Any])?["error"] as? String
                        == "content-state does not decode as DeliveryAttributes.ContentState: etaMinutes is missing")

                let started = try await control.post("/v1/devices/device-1/activities",
                    #"{"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"A-1"},"contentState":{"status":"packed","etaMinutes":40}}"#)
                let token = try #require((started.json as? [String: Any])?["token"] as? String)
                var details: [String] = []
                for (eta, at) in [("30", 1800000010), ("\"soon\"", 1800000020), ("20", 1800000030)] {
                    let (_, apnsID) = try await Self.update(harness, token: token,
                        aps: #"{"event":"update","timestamp":"# + "\(at)" + #","content-state":{"status":"on the way","etaMinutes":"# + eta + "}}")
                    let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                    details.append(record["detail"] as? String ?? "")
                }
                #expect(details[0].hasSuffix("update: applied"))
                #expect(details[1].hasSuffix(#"refused the push: content-state does not decode as DeliveryAttributes.ContentState: etaMinutes is "soon", not an Int"#))
                #expect(details[2].contains("throttled the update: com.example.app has had its 1 priority-10 updates this hour"), "\(details)")
                let listed = try #require(try await control.get("/v1/activities?token=\(token)").json as? [[String: Any]])
                #expect((listed.first?["contentState"] as? [String: Any])?["etaMinutes"] as? Int == 30)
                let devices = try #require(try await control.get("/v1/devices").json as? [[String: Any]])
                let budget = try #require((devices.first?["apps"] as? [[String: Any]])?.first?["activityBudget"] as? [String: Any],
                                          "GET /v1/devices shows what is left of the app's budget")
                #expect(budget["perHour"] as? Int == 1 && budget["remaining"] as? Int == 0, "\(budget)")
            }
        }
    }

    @Test("Push-to-start: each declared type has a token; a start push starts an activity that gets its own token; anything else starts nothing")
    func pushToStart() async throws {
        try await withGateway { harness in
            var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
            app.activityTypes = [Self.delivery]
            try await withDevice(harness, apps: [app]) { device in
                let control = harness.control
                let devices = try #require(try await control.get("/v1/devices").json as? [[String: Any]])
                let apps = try #require(devices.first?["apps"] as? [[String: Any]])
                let startToken = try #require((apps.first?["pushToStartTokens"] as? [String: String])?["DeliveryAttributes"])
                #expect(startToken == device.pushToStartTokens["com.example.app"]?["DeliveryAttributes"]?.hex)
                #expect(startToken != apps.first?["token"] as? String)

                let (response, apnsID) = try await Self.update(harness, token: startToken, aps: #"""
                    {"event":"start","timestamp":1800000000,"attributes-type":"DeliveryAttributes","attributes":{"orderID":"B-7"},
                     "content-state":{"status":"packed","etaMinutes":45},"alert":{"title":"Order B-7","body":"Packed"},"input-push-token":1}
                    """#)
                #expect(response.status == 200)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect((record["detail"] as? String)?.hasSuffix("started by push (DeliveryAttributes)") == true, "\(record)")
                // The registry takes the receipt, and gives the activity its token, before the record is written.
                let activities = try #require(try await control.get("/v1/activities?device=device-1").json as? [[String: Any]])
                #expect(activities.count == 1)
                #expect((activities.first?["attributes"] as? [String: Any])?["orderID"] as? String == "B-7")
                let token = try #require(activities.first?["token"] as? String, "an activity started by push gets a token of its own")
                #expect(token != startToken)

                let (_, updateID) = try await Self.update(harness, token: token,
                    aps: #"{"event":"update","timestamp":1800000100,"content-state":{"status":"on the way","etaMinutes":15}}"#)
                let updated = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: updateID))
                #expect((updated["detail"] as? String)?.hasSuffix("update: applied") == true, "\(updated)")

                let (_, wrongTypeID) = try await Self.update(harness, token: startToken, aps: #"""
                    {"event":"start","timestamp":1800000200,"attributes-type":"ScoreAttributes","attributes":{},"content-state":{},"alert":"x"}
                    """#)
                let wrongType = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: wrongTypeID))
                #expect(wrongType["outcome"] as? String == "dropped")
                #expect(wrongType["detail"] as? String
                        == "no Live Activity started: aps.attributes-type is ScoreAttributes, but this push-to-start token is DeliveryAttributes's")
                let (_, notStartID) = try await Self.update(harness, token: startToken,
                    aps: #"{"event":"update","timestamp":1800000300,"content-state":{"status":"x","etaMinutes":1}}"#)
                let notStart = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: notStartID))
                #expect((notStart["detail"] as? String)?.contains("takes only event start") == true)
            }
        }
    }

    @Test("apnsim activity start, list and end: the app's calls from the command line, errors in one sentence")
    func commandLine() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let url = "http://127.0.0.1:\(harness.endpoints.controlPort)"
                func apnsim(_ arguments: [String]) async throws -> (ChildProcess.ExitStatus, String) {
                    try await ChildProcess.run([ApnsimProcess.executable.path, "activity"] + arguments + ["--control-url", url])
                }
                let (started, startOutput) = try await apnsim(["start", "device-1", "com.example.app", "DeliveryAttributes",
                                                               "--attributes", #"{"orderID":"C-3"}"#, "--state", #"{"status":"packed"}"#])
                #expect(started == .exited(0), "\(startOutput)")
                let id = try #require(startOutput.split(separator: " ").dropFirst().first.map(String.init))
                #expect(startOutput.contains("push token "))
                let (_, listed) = try await apnsim(["list", "--device", "device-1"])
                #expect(listed.contains(id) && listed.contains(#"{"status":"packed"}"#), "\(listed)")
                let (ended, endOutput) = try await apnsim(["end", id, "--state", #"{"status":"delivered"}"#])
                #expect(ended == .exited(0))
                #expect(endOutput.contains(#"{"status":"delivered"}"#) && endOutput.contains("ended, dismissed at"), "\(endOutput)")
                let (missing, missingOutput) = try await apnsim(["start", "device-1", "com.example.other", "T", "--state", "{}"])
                #expect(missing == .exited(1))
                #expect(missingOutput == "apnsim: device device-1 has no registered com.example.other; install it first\n")
            }
        }
    }
}

extension LiveActivityDeliveryTests {
    /// iOS 26's scheduled start (`Activity.request(…start:)`): the activity exists as scheduled, with no token, until its
    /// start on the world's clock; then it gets its token and takes pushes. One ended before its start never starts.
    @Test("A scheduled activity has no token until its start on the world's clock, then takes an update; one ended first never starts")
    func scheduled() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let control = harness.control
                let start = ISO8601DateFormatter().string(from: harness.clock.now.addingTimeInterval(3600))
                let body = { (order: String) in #"""
                    {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"\#(order)"},
                     "contentState":{"status":"packed","etaMinutes":40},"start":"\#(start)"}
                    """# }
                let scheduled = try await control.post("/v1/devices/device-1/activities", body("S-1"))
                #expect(scheduled.status == 201, "\(scheduled.text)")
                let view = try #require(scheduled.json as? [String: Any])
                let id = try #require(view["id"] as? String)
                #expect(view["scheduled"] as? Bool == true && view["token"] == nil && view["visible"] as? Bool == false, "\(view)")
                let cancelled = try #require(try await control.post("/v1/devices/device-1/activities", body("S-2")).json as? [String: Any])
                let cancelledID = try #require(cancelled["id"] as? String)
                #expect(try await control.post("/v1/activities/\(cancelledID)/end", "").status == 200)

                harness.clock.advance(by: 1800)
                let before = try #require(try await control.get("/v1/activities").json as? [[String: Any]])
                #expect(before.map { $0["id"] as? String } == [id], "only the one not ended, still scheduled: \(before)")
                #expect(before.first?["scheduled"] as? Bool == true && device.state(ofActivity: id) == nil, "the device has nothing yet")

                harness.clock.advance(by: 1801)
                let after = try #require(try await control.get("/v1/activities").json as? [[String: Any]])
                #expect(after.map { $0["id"] as? String } == [id], "the ended one never started: \(after)")
                let token = try #require(after.first?["token"] as? String, "its token comes with its start: \(after)")
                #expect(after.first?["scheduled"] == nil && after.first?["visible"] as? Bool == true)
                let (response, apnsID) = try await Self.update(harness, token: token,
                    aps: #"{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}"#)
                #expect(response.status == 200)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect((record["activity"] as? [String: Any])?["result"] as? String == "applied", "\(record)")
            }
        }
    }
}
