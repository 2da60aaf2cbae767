import APNSimProvider
import APNSimRules
import APNSimTesting
import Foundation

/// One scenario running against one world: its provider connections and JWTs, kept across steps as a provider
/// keeps them, and the control API it checks records through.
actor ScenarioSession {
    struct Target: Sendable {
        var host: String
        var providerPorts: [APNsEnvironment: Int]
        /// The channel management API's ports (broadcast channels).
        var managementPorts: [APNsEnvironment: Int] = [:]
        var control: ControlClient
        /// `http://HOST:PORT/media`, what `${media}` stands for.
        var media: String?
        var certs: String
    }

    let target: Target
    let loaded: LoadedScenario
    var connections: [String: ProviderClient] = [:]
    /// One JWT per key for the whole run, as Apple asks (a new one at most every 20 minutes).
    var jwts: [String: (token: String, issuedAt: Date)] = [:]
    /// The connection the last send used.
    var lastConnection: String?
    /// How far the world's clock is ahead of the system's (moved by `advance` steps): JWTs and `expiresIn` are
    /// made by the world's time, as a provider's clock would agree with APNs'.
    var clockOffset: TimeInterval = 0
    /// Tokens looked up so far, by `device|app`: after an uninstall, a send to that app uses the token it had.
    var knownTokens: [String: String] = [:]
    /// The IDs of the channels `channel` steps created, by the name the scenario gives them.
    var channelIDs: [String: String] = [:]
    /// The `apns-id` of the last push each device's apps were sent and accepted: what a `tap` or `dismiss` acts on.
    var lastAccepted: [String: String] = [:]

    init(target: Target, loaded: LoadedScenario) {
        self.target = target
        self.loaded = loaded
    }

    /// Runs each step in order; after a failure the rest are reported as skipped.
    func run(defaultWithin: Duration) async -> [StepResult] {
        var results: [StepResult] = []
        var failed = false
        for (index, step) in loaded.scenario.steps.enumerated() {
            let line = loaded.stepLines.indices.contains(index) ? loaded.stepLines[index] : 0
            let title = step.name ?? Self.title(of: step)
            if failed {
                results.append(StepResult(number: index + 1, line: line, title: title, happened: "skipped", failures: [], skipped: true,
                                          duration: .zero))
                continue
            }
            let started = ContinuousClock.now
            var outcome: (happened: String, failures: [String])
            do {
                outcome = try await run(step, within: step.expect?.within?.duration ?? defaultWithin)
            } catch {
                outcome = ("error", ["\(error)"])
            }
            failed = !outcome.failures.isEmpty
            results.append(StepResult(number: index + 1, line: line, title: title, happened: outcome.happened,
                                      failures: outcome.failures, skipped: false, duration: ContinuousClock.now - started))
        }
        return results
    }

    func close() async {
        for connection in connections.values { await connection.close() }
        connections.removeAll()
    }

    static func title(of step: Scenario.Step) -> String {
        if let channel = step.channel {
            return channel.create.map { "create channel \($0) of \(channel.app)" } ?? "delete channel \(channel.delete ?? "?") of \(channel.app)"
        }
        if let send = step.send, let channel = send.broadcast { return "broadcast on \(channel) to \(send.app ?? "?")" }
        if let send = step.send {
            return "send to " + (send.token.map { String($0.prefix(12)) + "…" } ?? "\(send.device ?? "?") \(send.app ?? "?")")
        }
        if let push = step.push { return "push \(push.file) to \(push.device)" }
        if let device = step.device { return "device \(device.id) \(device.action.rawValue)\(device.app.map { " \($0)" } ?? "")" }
        if let tap = step.tap { return "tap \(tap.action.map { "action \($0) of " } ?? "")a notification on \(tap.device)" }
        if let dismiss = step.dismiss { return "dismiss a notification on \(dismiss.device)" }
        if let wait = step.wait { return "wait \(wait)" }
        if let advance = step.advance { return "advance the clock \(advance)" }
        if let fault = step.fault {
            if case .add(let fault) = fault { return "fault \(fault.resolvedKind.rawValue)" }
            return "clear faults"
        }
        if let deliveries = step.expect?.deliveries { return "deliveries on \(deliveries.device)" }
        if let activity = step.expect?.activity {
            return "activity \(activity["type"]?.string ?? "?") of \(activity["app"]?.string ?? "?") on \(activity["device"]?.string ?? "?")"
        }
        if let install = step.expect?.install { return "install of \(install.app) on \(install.device)" }
        return "expect"
    }

    private func run(_ step: Scenario.Step, within: Duration) async throws -> (happened: String, failures: [String]) {
        var happened: [String] = []
        var failures: [String] = []
        if let push = step.push {
            let outcome = try await self.send(try Self.send(for: push, in: loaded.directory))
            let result = try await check(outcome, against: step.expect, within: within)
            happened += result.happened
            failures += result.failures
        }
        if let send = step.send {
            let outcome = try await self.send(send, giveUpAfter: step.expect?.unanswered?.duration)
            if let device = send.device, outcome.response?.status == 200, let apnsID = outcome.apnsID { lastAccepted[device] = apnsID }
            let result = try await check(outcome, against: step.expect, within: within)
            happened += result.happened
            failures += result.failures
        }
        if let channel = step.channel {
            let result = try await self.channel(channel, expect: step.expect)
            happened.append(result.happened)
            failures += result.failures
        }
        if let device = step.device {
            // A fleet's ID (a world device with `count`) acts on each of its devices.
            let ids = deviceIDs(device.id)
            for id in ids {
                let answer = try await act(device, on: id)
                let refused = answer.status == 422 && step.expect?.install?.refused != nil
                if ids.count == 1 { happened.append(refused ? "install refused"
                                                  : device.action == .deliverSummary ? answer.body?["detail"]?.string ?? "" : device.action.rawValue) }
                if device.action == .deliverSummary, let pattern = step.expect?.summary, answer.status == 200 {
                    failures += Pattern.mismatches(pattern, answer.body, at: "summary")
                }
                if !(200..<300).contains(answer.status) && !refused {
                    failures.append("device \(id) \(device.action.rawValue): the control API answered \(answer.status) \(answer.body?["error"]?.string ?? "")")
                    break
                }
            }
            if ids.count > 1 { happened.append("\(device.action.rawValue) on \(ids.count) devices") }
        }
        for (interaction, dismiss) in [(step.tap, false), (step.dismiss, true)] {
            guard let interaction else { continue }
            let result = try await interact(interaction, dismiss: dismiss, expect: step.expect?.interaction)
            happened.append(result.happened)
            failures += result.failures
        }
        if let wait = step.wait {
            try await Task.sleep(for: wait.duration)
            happened.append("waited \(wait)")
        }
        if let advance = step.advance {
            let answer = try await target.control.post("/v1/clock", #"{"advance":\#(advance.seconds)}"#)
            if answer.status == 200, let offset = answer.body?["offsetSeconds"]?.number {
                clockOffset = offset
                happened.append("clock advanced \(advance), now \(answer.body?["now"]?.string ?? "")")
            } else {
                failures.append("advance: the control API answered \(answer.status): \(answer.body?["error"]?.string ?? "")")
            }
        }
        if let fault = step.fault {
            let answer: ControlClient.Answer
            switch fault {
            case .clear:
                answer = try await target.control.delete("/v1/faults")
                happened.append("faults cleared")
            case .add(let fault):
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                answer = try await target.control.post("/v1/faults", String(decoding: try encoder.encode(fault), as: UTF8.self))
                happened.append(answer.body?.array?.first?["id"]?.string.map { "fault \($0) added" } ?? "")
            }
            if answer.status != 200 {
                failures.append("fault: the control API answered \(answer.status): \(answer.body?["error"]?.string ?? "")")
            }
        }
        if step.send == nil, let pattern = step.expect?.goAway {
            // A GOAWAY that comes on its own (a fault acting now): awaited on the connection the last send used.
            if let frame = await lastConnectionGoAway(within: within) {
                happened.append("GOAWAY \(frame.reason ?? frame.debugData) (last stream \(frame.lastStreamID))")
                failures += Pattern.mismatches(pattern, Self.record(of: frame), at: "goAway")
            } else {
                failures.append("goAway: expected the connection to get GOAWAY within \(Self.seconds(within)), it did not")
            }
        }
        if let expected = step.expect?.deliveries {
            let records = try await deliveries(expected, within: within)
            happened.append("\(records.count) deliveries: " + records.map { $0["outcome"]?.string ?? "pending" }.joined(separator: ", "))
            let patterns = expected.records.map { Pattern.substituting($0, media: target.media) }
            failures += Pattern.mismatches(.array(patterns), .array(records), at: "deliveries")
        }
        if let expected = step.expect?.activity {
            guard case .object(var pattern) = expected, let device = pattern.removeValue(forKey: "device")?.string,
                  let app = pattern.removeValue(forKey: "app")?.string, let type = pattern.removeValue(forKey: "type")?.string else {
                throw ScenarioRunError("expect.activity names the activity by device, app and type, then what it must match")
            }
            let result = try await activity(device: device, app: app, type: type, matches: .object(pattern), within: within)
            happened.append(result.happened)
            failures += result.failures
        }
        if let install = step.expect?.install {
            let (token, refusal) = try await self.install(install, within: within)
            happened.append(refusal.map { "refused: \($0)" } ?? (token != nil ? "registered" : "neither registered nor refused"))
            if let pattern = install.refused {
                failures += Pattern.mismatches(pattern, refusal.map(JSONValue.string), at: "install.refused")
            }
            if let registered = install.registered, registered != (token != nil) {
                failures.append("install.registered: expected \(registered), got \(token != nil)\(refusal.map { " (refused: \($0))" } ?? "")")
            }
        }
        return (happened.filter { !$0.isEmpty }.joined(separator: ", "), failures)
    }

    /// Does `device`'s action on the device `id`, through the control API.
    private func act(_ device: Scenario.DeviceAction, on id: String) async throws -> ControlClient.Answer {
        let answer: ControlClient.Answer
        switch device.action {
        case .offline, .online:
            answer = try await target.control.post("/v1/devices/\(id)/\(device.action.rawValue)")
        case .install:
            var body: [String: JSONValue] = ["bundleID": .string(device.app ?? ""),
                                             "environment": .string((device.environment ?? .development).rawValue)]
            if let team = device.team ?? loaded.world.apps[device.app ?? ""]?.team { body["team"] = .string(team) }
            answer = try await target.control.post("/v1/devices/\(id)/apps",
                                                   String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        case .uninstall:
            answer = try await target.control.delete("/v1/devices/\(id)/apps/\(device.app ?? "")")
        case .foreground, .background:
            var body: [String: JSONValue] = ["bundleID": .string(device.app ?? "")]
            if let options = device.options { body["options"] = .array(options.map(JSONValue.string)) }
            answer = try await target.control.post("/v1/devices/\(id)/\(device.action.rawValue)",
                                                   String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        case .restart:
            answer = try await target.control.post("/v1/devices/\(id)/restart")
        case .startActivity:
            var body: [String: JSONValue] = ["bundleID": .string(device.app ?? ""), "attributesType": .string(device.type ?? ""),
                                             "attributes": device.attributes ?? .object([:]), "contentState": device.contentState ?? .object([:])]
            if let channel = device.channel { body["channel"] = .string(try channelID(channel)) }
            if let start = device.start { body["start"] = .string(start) }
            if let startIn = device.startIn {
                let start = Date().addingTimeInterval(clockOffset + startIn.seconds)
                body["start"] = .string(start.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
            }
            answer = try await target.control.post("/v1/devices/\(id)/activities",
                                                   String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        case .endActivity:
            guard let activity = try await newestActivity(device: id, bundleID: device.app ?? "", type: device.type ?? ""),
                  let id = activity["id"]?.string else {
                throw ScenarioRunError("\(device.app ?? "") on \(id) has no Live Activity of type \(device.type ?? "") to end")
            }
            var body: [String: JSONValue] = [:]
            if let state = device.contentState { body["contentState"] = state }
            if let dismissal = device.dismissalDate { body["dismissalDate"] = .string(dismissal) }
            answer = try await target.control.post("/v1/activities/\(id)/end",
                                                   String(decoding: try JSONEncoder().encode(body), as: UTF8.self))
        case .focus:
            let focus = Focus(name: device.name ?? "", allowedApps: device.allowedApps ?? [])
            answer = try await target.control.post("/v1/devices/\(id)/focus", String(decoding: try JSONEncoder().encode(focus), as: UTF8.self))
        case .focusOff:
            answer = try await target.control.delete("/v1/devices/\(id)/focus")
        case .summary:
            let summary = ScheduledSummary(times: device.times ?? [], apps: device.apps, timeZone: device.timeZone)
            answer = try await target.control.post("/v1/devices/\(id)/summary", String(decoding: try JSONEncoder().encode(summary), as: UTF8.self))
        case .summaryOff:
            answer = try await target.control.delete("/v1/devices/\(id)/summary")
        case .deliverSummary:
            answer = try await target.control.post("/v1/devices/\(id)/summary/deliver")
        }
        return answer
    }

    /// A send's outcome against the step's expectations: status and reason (200 unless said), GOAWAY, the delivery.
    private func check(_ outcome: SendOutcome, against expect: Scenario.Expectation?,
                       within: Duration) async throws -> (happened: [String], failures: [String]) {
        var happened: [String] = []
        var failures: [String] = []
        if outcome.unanswered {
            happened.append("no answer in \(expect?.unanswered?.description ?? "time"); the provider gave up and closed the connection")
            if expect?.unanswered == nil { failures.append("the gateway did not answer") }
            return (happened, failures)
        }
        if let unanswered = expect?.unanswered {
            let instead = outcome.response.map { "the gateway answered \($0.status)" }
                ?? (outcome.goAway != nil ? "the gateway sent GOAWAY" : "the connection closed")
            failures.append("unanswered: expected no answer within \(unanswered), but \(instead)")
        }
        if outcome.dropped {
            happened.append("connection dropped")
            if expect?.connectionDropped != true {
                failures.append("the connection closed without GOAWAY instead of answering")
            }
            return (happened, failures)
        }
        if expect?.connectionDropped == true {
            failures.append("connectionDropped: expected the connection to close, but it did not")
        }
        if let pattern = expect?.settings {
            failures += Pattern.mismatches(pattern, .object(outcome.settings.mapValues { .number(Double($0)) }), at: "settings")
        }
        if let goAway = outcome.goAway {
            let reason = goAway.reason ?? goAway.debugData
            happened.append("GOAWAY \(reason) (last stream \(goAway.lastStreamID))")
            let record = Self.record(of: goAway)
            if let pattern = expect?.goAway {
                failures += Pattern.mismatches(pattern, record, at: "goAway")
            } else {
                failures.append("the gateway ended the connection with GOAWAY \(goAway.debugData) instead of answering")
            }
            return (happened, failures)
        }
        if expect?.goAway != nil {
            failures.append("goAway: expected the connection to end with GOAWAY, but the gateway answered \(outcome.response?.status ?? 0)")
        }
        guard let response = outcome.response else { return (happened, failures) }
        if let code = response.resetCode {
            happened.append("RST_STREAM \(code)")
            if let expected = expect?.reset, expected != Int(code) {
                failures.append("reset: expected RST_STREAM \(expected), got \(code)")
            } else if expect?.reset == nil {
                failures.append("the stream was reset (RST_STREAM \(code)) instead of answered")
            }
            return (happened, failures)
        }
        if let expected = expect?.reset {
            failures.append("reset: expected RST_STREAM \(expected), but the gateway answered \(response.status)")
        }
        happened.append(response.status == 200 ? "200" : "\(response.status) \(response.reason ?? "")")
        if let pattern = expect?.sent, let apnsID = outcome.apnsID {
            let record = try await target.control.get("/v1/sends?apnsId=\(apnsID)&limit=1").body?.array?.first
            failures += Pattern.mismatches(Pattern.substituting(pattern, media: target.media), record, at: "sent")
        }
        let status = expect?.status ?? (expect?.reason == nil ? 200 : nil)
        if let status, response.status != status {
            failures.append("status: expected \(status), got \(response.status)\(response.reason.map { " \($0)" } ?? "")")
        }
        if let reason = expect?.reason, response.reason != reason {
            failures.append("reason: expected \(reason), got \(response.reason ?? "none")")
        }
        let accepted = response.status == 200 ? outcome.apnsID : nil
        if let pattern = expect?.delivery {
            guard let apnsID = accepted else {
                failures.append("delivery: expected one, but the push was not accepted")
                return (happened, failures)
            }
            if let count = expect?.deliveredTo {
                let records = try await deliveries(apnsID: apnsID, count: count, within: within)
                happened.append("delivered to \(records.count)")
                if records.count != count {
                    failures.append("deliveredTo: expected \(count) deliveries of apns-id \(apnsID) within \(Self.seconds(within)), found \(records.count)")
                }
                for record in records where failures.count < 5 {
                    failures += Pattern.mismatches(Pattern.substituting(pattern, media: target.media), record,
                                                   at: "delivery to \(record["device"]?.string ?? "?")")
                }
            } else if let record = try await delivery(apnsID: apnsID, within: within) {
                happened.append([record["outcome"]?.string, record["extension"]?["kind"]?.string,
                                 record["extension"]?["outcome"]?.string].compactMap { $0 }.joined(separator: ", "))
                failures += Pattern.mismatches(Pattern.substituting(pattern, media: target.media), record, at: "delivery")
            } else {
                failures.append("delivery: expected a delivery record for apns-id \(apnsID) within \(Self.seconds(within)), found none")
            }
        }
        if let quiet = expect?.nothingDisplayed, let apnsID = accepted {
            let record = try await delivery(apnsID: apnsID, within: quiet.duration)
            if let record, record["outcome"]?.string == "displayed" {
                failures.append("nothingDisplayed: expected nothing displayed within \(quiet), but the device displayed it: \(Pattern.show(record))")
            } else {
                happened.append(record?["outcome"]?.string.map { "\($0), not displayed" } ?? "nothing displayed in \(quiet)")
            }
        }
        return (happened, failures)
    }

    /// The send a `push` step stands for: the file's payload and the headers simctl's push implies.
    static func send(for push: Scenario.Push, in directory: URL) throws -> Scenario.Send {
        let path = push.file.hasPrefix("/") ? push.file : directory.appendingPathComponent(push.file).path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ScenarioRunError("cannot read the .apns file \(path): \(error.localizedDescription)")
        }
        let apns = try SimctlPayload(text: text, file: path)
        guard let app = push.app ?? apns.targetBundle else {
            throw ScenarioRunError("\(path) has no \"Simulator Target Bundle\"; name the app with push.app")
        }
        var send = Scenario.Send()
        send.device = push.device
        send.app = app
        send.pushType = apns.isBackground ? "background" : "alert"
        send.priority = apns.isBackground ? 5 : 10
        send.payload = .string(apns.payload)
        return send
    }

    static func record(of goAway: GoAwayFrame) -> JSONValue {
        .object(["reason": goAway.reason.map(JSONValue.string) ?? .null, "lastStreamId": .number(Double(goAway.lastStreamID)),
                 "errorCode": .number(Double(goAway.errorCode))])
    }

    /// The GOAWAY on the connection the last send used, once it comes (or `nil` after `within`).
    private func lastConnectionGoAway(within: Duration) async -> GoAwayFrame? {
        guard let key = lastConnection, let client = connections[key] else { return nil }
        // goAway() returns at GOAWAY or when the connection closes; past `within` the connection is closed.
        let timeout = Task {
            try await Task.sleep(for: within)
            await client.close()
        }
        let frame = await client.goAway()
        timeout.cancel()
        connections[key] = nil
        return frame
    }

    /// The delivery record of the push with `apnsID`, once the device has said what it did with it.
    private func delivery(apnsID: String, within: Duration) async throws -> JSONValue? {
        try await deliveries(apnsID: apnsID, count: 1, within: within).first
    }

    /// The deliveries of one accepted push or broadcast with an outcome, once there are `count` (or `within` has passed).
    private func deliveries(apnsID: String, count: Int, within: Duration) async throws -> [JSONValue] {
        try await longPoll("/v1/deliveries?apnsId=\(apnsID)&count=\(max(1, count))&limit=\(count + 1)", count: max(1, count), within: within)
    }

    /// The device's deliveries with an outcome, oldest first, once there are as many as `expected` names (or
    /// `within` has passed): long-polls of `GET /v1/deliveries?wait=…&count=…`.
    private func deliveries(_ expected: Scenario.Deliveries, within: Duration) async throws -> [JSONValue] {
        var query = "/v1/deliveries?device=\(expected.device)&limit=1000&count=\(max(1, expected.records.count))"
        if let app = expected.app { query += "&bundleID=\(app)" }
        return try await longPoll(query, count: max(1, expected.records.count), within: within)
    }

    /// `GET query&wait=…` until it answers `count` records or `within` has passed: the control API holds one
    /// long-poll for at most 60 s, so a longer `within` asks again (a step given two minutes had one).
    private func longPoll(_ query: String, count: Int, within: Duration) async throws -> [JSONValue] {
        let deadline = ContinuousClock.now + within
        while true {
            let left = max(deadline - ContinuousClock.now, .zero)
            let records = try await target.control.get("\(query)&wait=\(min(60, left.inSeconds))").body?.array ?? []
            if records.count >= count || left <= .seconds(60) { return records }
        }
    }

    /// The app's token or refusal on the device. The control API has no long-poll for installs, so this asks
    /// again every 100 ms until either is there.
    private func install(_ install: Scenario.Install, within: Duration) async throws -> (String?, String?) {
        let deadline = ContinuousClock.now + within
        while true {
            let (token, refusal) = try await target.control.install(device: install.device, app: install.app)
            if token != nil || refusal != nil || ContinuousClock.now >= deadline { return (token, refusal) }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    static func seconds(_ duration: Duration) -> String {
        let value = duration.inSeconds
        return value.rounded() == value ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}
