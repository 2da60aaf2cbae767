import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The user's side of a notification over the real gateway and a real device: taps, buttons, replies and dismisses
/// through the control API, each answered with its interaction record and listed by `GET /v1/interactions`.
@Suite("Interactions", .endToEnd)
struct InteractionTests {
    static func app() -> AppManifest {
        var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
        app.categories = [
            NotificationCategory(identifier: "MESSAGE", actions: [
                .init(identifier: "reply", title: "Reply", textInput: .init(buttonTitle: "Send", placeholder: "Message")),
            ], options: ["customDismissAction"]),
            NotificationCategory(identifier: "ORDER", actions: [.init(identifier: "track", title: "Track", options: ["foreground"])]),
        ]
        return app
    }

    /// Sends `payload` to the device's app and waits until its delivery has an outcome; returns the push's apns-id.
    static func shown(_ harness: GatewayHarness, _ device: DeviceHost, _ payload: String) async throws -> String {
        let apnsID = UUID().uuidString
        let token = try #require(device.tokens["com.example.app"])
        #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: payload, apnsID: apnsID).status == 200)
        let control = harness.control
        #expect(try await control.deliveries("apnsId=\(apnsID)&wait=30").first?["outcome"] as? String == "displayed")
        return apnsID
    }

    @Test("A Braze push tapped opens its ab_uri and reports Braze's push click; the record is listed, and the notification is gone")
    func brazeTap() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [Self.app()]) { device in
                let control = harness.control
                let apnsID = try await Self.shown(harness, device, #"{"aps":{"alert":"Sale"},"ab":{"c":"Y2FtcA"},"ab_uri":"shop://sale/42"}"#)
                let tapped = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(apnsID)"}"#)
                #expect(tapped.status == 200, "\(tapped.json)")
                let record = try #require(tapped.json as? [String: Any])
                #expect(record["opened"] as? String == "shop://sale/42")
                #expect(record["action"] as? String == InteractionRecord.defaultAction)
                let event = record["event"] as? [String: Any]
                #expect(event?["vendor"] as? String == "Braze" && event?["name"] as? String == "pushClick")
                #expect((event?["ids"] as? [String: String])?["campaignId"] == "Y2FtcA")
                #expect((record["at"] as? String)?.hasSuffix("Z") == true, "RFC 3339: \(record["at"] ?? "none")")
                #expect(device.displayed.isEmpty, "the tap took it off the list")

                let listed = try #require(try await control.get("/v1/interactions?apnsId=\(apnsID)").json as? [[String: Any]])
                #expect(listed.count == 1 && listed.first?["id"] as? String == record["id"] as? String)
                let token = try #require(device.tokens["com.example.app"]).hex
                #expect((try await control.get("/v1/interactions?token=\(token)").json as? [[String: Any]])?.count == 1)

                let again = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(apnsID)"}"#)
                #expect(again.status == 422)
                #expect(((again.json as? [String: Any])?["error"] as? String)?.contains("shows no notification of push \(apnsID)") == true)
            }
        }
    }

    @Test("A reply's text and a foreground button are recorded; a dismiss reaches the app only with customDismissAction; bad input changes nothing")
    func repliesAndDismisses() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [Self.app()]) { device in
                let control = harness.control
                let message = try await Self.shown(harness, device, #"{"aps":{"alert":"Hi","category":"MESSAGE"}}"#)
                let order = try await Self.shown(harness, device, #"{"aps":{"alert":"Shipped","category":"ORDER"}}"#)

                let wrong = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(order)","action":"track","text":"x"}"#)
                #expect(wrong.status == 422)
                #expect(((wrong.json as? [String: Any])?["error"] as? String)?.contains("action track takes no text") == true)
                let missing = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(order)","action":"cancel"}"#)
                #expect(((missing.json as? [String: Any])?["error"] as? String)?.contains("has no action cancel; its buttons are track") == true)
                #expect(try await control.post("/v1/devices/device-1/tap", #"{"action":"track"}"#).status == 400)
                #expect(try await control.post("/v1/devices/nobody/tap", #"{"apnsId":"\#(order)"}"#).status == 409)
                #expect(device.displayed.count == 2, "nothing changed")

                let reply = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(message)","action":"reply","text":"On my way"}"#)
                #expect((reply.json as? [String: Any])?["text"] as? String == "On my way")
                let tracked = try #require(try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(order)","action":"track"}"#).json
                    as? [String: Any])
                #expect(tracked["appState"] as? String == "inactive", "a foreground action brings the app up")

                let told = try await Self.shown(harness, device, #"{"aps":{"alert":"Hi again","category":"MESSAGE"}}"#)
                let untold = try await Self.shown(harness, device, #"{"aps":{"alert":"Shipped again","category":"ORDER"}}"#)
                let dismissed = try #require(try await control.post("/v1/devices/device-1/dismiss", #"{"apnsId":"\#(told)"}"#).json as? [String: Any])
                #expect(dismissed["delivered"] as? Bool == true)
                let silent = try #require(try await control.post("/v1/devices/device-1/dismiss", #"{"apnsId":"\#(untold)"}"#).json as? [String: Any])
                #expect(silent["delivered"] as? Bool == false)
                #expect(device.displayed.isEmpty)
                #expect((try await control.get("/v1/interactions?device=device-1").json as? [[String: Any]])?.count == 4)
            }
        }
    }

    @Test("A reply's text reaches the app's forward URL, sent again after a 503; the record says what it answered")
    func forwarded() async throws {
        try await withForwardTarget(statuses: [503]) { url, target in
            try await withGateway { harness in
                var app = Self.app()
                app.responses = .init(urlKeys: ["deeplink"], forward: url)
                try await withDevice(harness, apps: [app]) { device in
                    let control = harness.control
                    let message = try await Self.shown(harness, device, #"{"aps":{"alert":"Hi","category":"MESSAGE"},"chat":"c-7"}"#)
                    let reply = try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(message)","action":"reply","text":"On my way"}"#)
                    let record = try #require(reply.json as? [String: Any])
                    let forwarded = try #require(record["forwarded"] as? [String: Any])
                    #expect(forwarded["url"] as? String == url)
                    #expect(forwarded["attempts"] as? Int == 2 && forwarded["status"] as? Int == 200, "\(forwarded)")
                    #expect(forwarded["answer"] as? String == #"{"stored":true}"#)
                    #expect(target.bodies.count == 2)
                    let last = try #require(target.bodies.last)
                    let sent = try #require(try JSONSerialization.jsonObject(with: last) as? [String: Any])
                    #expect((sent["interaction"] as? [String: Any])?["text"] as? String == "On my way")
                    #expect((sent["userInfo"] as? [String: Any])?["chat"] as? String == "c-7")

                    let linked = try await Self.shown(harness, device, #"{"aps":{"alert":"Open"},"deeplink":"app://chat/c-7"}"#)
                    let tapped = try #require(try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(linked)"}"#).json as? [String: Any])
                    #expect(tapped["opened"] as? String == "app://chat/c-7" && tapped["openedBy"] as? String == "deeplink")
                    #expect(target.bodies.count == 3, "every response is forwarded")
                }
            }
        }
    }

    @Test("A Work Focus holds an active push and lets a time-sensitive one through with the entitlement; off again, pushes show")
    func focus() async throws {
        try await withGateway { harness in
            var app = Self.app()
            app.entitlements = [Interruption.timeSensitiveEntitlement]
            try await withDevice(harness, apps: [app]) { device in
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/focus", #"{"name":"Work","allowedApps":["com.example.other"]}"#).status == 200)
                let active = try await Self.shown(harness, device, #"{"aps":{"alert":"Lunch?"}}"#)
                let held = try #require(try await control.deliveries("apnsId=\(active)").first)
                #expect((held["presentation"] as? [String: Any])?["banner"] as? Bool == false)
                #expect((held["detail"] as? String)?.contains("held by the Work Focus") == true, "\(held)")
                let urgent = try await Self.shown(harness, device, #"{"aps":{"alert":"Your ride is here","interruption-level":"time-sensitive"}}"#)
                let through = try #require(try await control.deliveries("apnsId=\(urgent)").first)
                #expect((through["presentation"] as? [String: Any])?["banner"] as? Bool == true)
                #expect(try await control.post("/v1/devices/device-1/focus", #"{"allowedApps":[]}"#).status == 400)
                #expect(try await control.delete("/v1/devices/device-1/focus").status == 200)
                let later = try await Self.shown(harness, device, #"{"aps":{"alert":"Focus off"}}"#)
                #expect(((try await control.deliveries("apnsId=\(later)").first)?["presentation"] as? [String: Any])?["banner"] as? Bool == true)
            }
        }
    }

    @Test("apnsim tap, dismiss and focus print one line of what they did, or one sentence naming the input and exit 1")
    func commands() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [Self.app()]) { device in
                let url = ["--control-url", "http://127.0.0.1:\(harness.endpoints.controlPort)"]
                let apnsID = try await Self.shown(harness, device, #"{"aps":{"alert":"Sale"},"ab":{"c":"Y2FtcA"},"ab_uri":"shop://sale/42"}"#)
                let wrong = try await ChildProcess.run([ApnsimProcess.executable.path, "tap", "device-1", apnsID, "--action", "buy"] + url)
                #expect(wrong.status == .exited(1))
                #expect(wrong.output == "apnsim: the notification of push \(apnsID) has no action buy; it shows no buttons\n")
                let tapped = try await ChildProcess.run([ApnsimProcess.executable.path, "tap", "device-1", apnsID] + url)
                #expect(tapped.status == .exited(0))
                #expect(tapped.output == "tapped; the app opened shop://sale/42 (ab_uri); Braze reported pushClick\n")
                let gone = try await ChildProcess.run([ApnsimProcess.executable.path, "dismiss", "device-1", apnsID] + url)
                #expect(gone.status == .exited(1) && gone.output.contains("shows no notification of push \(apnsID)") && !gone.output.contains("Usage"))
                let focused = try await ChildProcess.run([ApnsimProcess.executable.path, "focus", "device-1", "Work", "--allow", "com.example.other"] + url)
                #expect(focused.status == .exited(0))
                #expect(focused.output == "device-1: Focus Work on; it lets com.example.other through\n")
                let held = try await Self.shown(harness, device, #"{"aps":{"alert":"Newsletter"}}"#)
                let control = harness.control
                #expect(((try await control.deliveries("apnsId=\(held)").first)?["detail"] as? String)?.contains("Work Focus") == true)
                let off = try await ChildProcess.run([ApnsimProcess.executable.path, "focus", "device-1", "--off"] + url)
                #expect(off.status == .exited(0) && off.output == "device-1: Focus off\n")
            }
        }
    }

    @Test("A team's own delegate, built from its source and run as the app's process, routes a tap by a payload key, reports a handler it never calls, and decides foreground presentation", .hangGuard)
    func ownDelegate() async throws {
        var app = Self.app()
        app.categories?.append(NotificationCategory(identifier: "REMINDER", actions: [.init(identifier: "snooze", title: "Snooze")]))
        app.responses = .init(delegate: .init(source: repositoryRoot.appendingPathComponent("Scenarios/interactions/RoutingApp").path))
        try await withGateway { [app] harness in
            try await withDevice(harness, apps: [app]) { device in
                let control = harness.control
                let routed = try await Self.shown(harness, device, #"{"aps":{"alert":"Shipped"},"screen":"orders/42"}"#)
                let tapped = try #require(try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(routed)"}"#).json as? [String: Any])
                let delegate = try #require(tapped["delegate"] as? [String: Any], "\(tapped)")
                #expect(delegate["class"] as? String == "AppDelegate")
                #expect(delegate["completed"] as? Bool == true, "\(delegate)")
                #expect(delegate["opened"] as? [String] == ["example://orders/42"])
                #expect(delegate["log"] as? [String] == ["routing to orders/42"])

                let reply = try await Self.shown(harness, device, #"{"aps":{"alert":"Hi","category":"MESSAGE"},"chat":"c-7"}"#)
                let replied = try #require(try await control.post("/v1/devices/device-1/tap",
                                                                   #"{"apnsId":"\#(reply)","action":"reply","text":"On my way"}"#).json as? [String: Any])
                #expect((replied["delegate"] as? [String: Any])?["log"] as? [String] == ["reply to c-7: On my way"], "\(replied)")

                let reminder = try await Self.shown(harness, device, #"{"aps":{"alert":"Stand up","category":"REMINDER"}}"#)
                let snoozed = try #require(try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(reminder)","action":"snooze"}"#).json
                    as? [String: Any])
                let forgot = try #require(snoozed["delegate"] as? [String: Any], "\(snoozed)")
                #expect(forgot["completed"] as? Bool == false)
                #expect((forgot["diagnostic"] as? String)?.contains("released the completion handler of userNotificationCenter(_:didReceive:withCompletionHandler:) without calling it") == true, "\(forgot)")

                // In the foreground, the delegate's willPresent decides: only the list for a quiet one.
                #expect(try await control.post("/v1/devices/device-1/foreground", #"{"bundleID":"com.example.app"}"#).status == 200)
                let quiet = try await Self.shown(harness, device, #"{"aps":{"alert":"FYI"},"quiet":true}"#)
                let record = try #require(try await control.deliveries("apnsId=\(quiet)").first)
                let presentation = try #require(record["presentation"] as? [String: Any], "\(record)")
                #expect(presentation["banner"] as? Bool == false && presentation["list"] as? Bool == true, "\(record)")
                #expect((record["detail"] as? String)?.contains("AppDelegate's willPresent handed back list") == true, "\(record)")
                let loud = try await Self.shown(harness, device, #"{"aps":{"alert":"Now"}}"#)
                let shown = try #require(try await control.deliveries("apnsId=\(loud)").first)
                #expect((shown["presentation"] as? [String: Any])?["banner"] as? Bool == true, "\(shown)")
            }
        }
    }
}
