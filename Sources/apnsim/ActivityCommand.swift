import APNSimRules
import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apnsim activity list|start|end`: Live Activities on the simulated devices, through the control API, as an app
/// starts and ends them with ActivityKit (docs/devices.md, "Live Activities").
struct ActivityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "List, start and end Live Activities on simulated devices.",
        subcommands: [List.self, Start.self, End.self]
    )

    struct Control: ParsableArguments {
        @Option(name: .customLong("control-url"), help: "The gateway's control API.")
        var controlURL = "http://127.0.0.1:8197"

        /// Sends a request and returns the JSON answer; a non-2xx answer throws its `error` sentence.
        func request(_ method: String, _ path: String, body: String? = nil) async throws -> Any {
            guard let url = URL(string: controlURL + path) else { throw ActivityCommandError("bad --control-url \(controlURL)") }
            var request = URLRequest(url: url)
            request.httpMethod = method
            if let body {
                request.httpBody = Data(body.utf8)
                request.setValue("application/json", forHTTPHeaderField: "content-type")
            }
            let (data, response): (Data, URLResponse)
            do {
                (data, response) = try await URLSession.shared.data(for: request)
            } catch {
                throw ActivityCommandError("cannot reach the control API at \(controlURL): \(error.localizedDescription); is apnsim up running?")
            }
            let json = (try? JSONSerialization.jsonObject(with: data)) ?? [:]
            guard let status = (response as? HTTPURLResponse)?.statusCode, (200..<300).contains(status) else {
                throw ActivityCommandError((json as? [String: Any])?["error"] as? String ?? "the control API answered \(String(decoding: data, as: UTF8.self))")
            }
            return json
        }
    }

    /// One activity, a line: its ID, device, app, type, state, token and marks.
    static func line(_ activity: [String: Any]) -> String {
        let state = (try? JSONSerialization.data(withJSONObject: activity["contentState"] ?? [:], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        var marks: [String] = []
        if activity["stale"] as? Bool == true { marks.append("stale") }
        if activity["ended"] as? Bool == true { marks.append("ended, dismissed at \(activity["dismissalDate"] as? String ?? "?")") }
        return "\(activity["id"] as? String ?? "?")  \(activity["device"] as? String ?? "?")  \(activity["bundleID"] as? String ?? "?")  "
            + "\(activity["attributesType"] as? String ?? "?")  \(state)  "
            + ((activity["channel"] as? String).map { "channel \($0)" } ?? "token \(activity["token"] as? String ?? "none")")
            + (marks.isEmpty ? "" : "  (\(marks.joined(separator: "; ")))")
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every device's Live Activities (GET /v1/activities).")
        @OptionGroup var control: Control
        @Option(help: "Only this device's.") var device: String?
        @Option(help: "Only this app's.") var bundle: String?

        func run() async throws {
            var query: [String] = []
            if let device { query.append("device=\(device)") }
            if let bundle { query.append("bundle=\(bundle)") }
            let activities = try await control.request("GET", "/v1/activities" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
            let list = activities as? [[String: Any]] ?? []
            if list.isEmpty { Console.say("no Live Activities") }
            for activity in list { Console.say(ActivityCommand.line(activity)) }
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "An app starts a Live Activity, as Activity.request does; prints its ID and push token.")
        @OptionGroup var control: Control
        @Argument(help: "The device's ID.") var device: String
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Argument(help: "The ActivityAttributes type, such as DeliveryAttributes.") var type: String
        @Option(help: "The static attributes, a JSON object.") var attributes = "{}"
        @Option(help: "The content state, a JSON object.") var state: String
        @Option(help: "A broadcast channel of the app to subscribe to (pushType: .channel), instead of a push token.") var channel: String?
        @Option(help: "When it starts, RFC 3339 (iOS 26's scheduled start); a time to come schedules it, with no push token until then.")
        var start: String?

        func run() async throws {
            for (name, json) in [("--attributes", attributes), ("--state", state)] where JSONObjectSyntax.object(Array(json.utf8)) == nil {
                throw ActivityCommandError("\(name) is not a JSON object: \(json)")
            }
            let body = #"{"bundleID":"# + Self.quoted(bundleID) + #","attributesType":"# + Self.quoted(type)
                + #","attributes":"# + attributes + #","contentState":"# + state
                + (channel.map { #","channel":"# + Self.quoted($0) } ?? "") + (start.map { #","start":"# + Self.quoted($0) } ?? "") + "}"
            let started = try await control.request("POST", "/v1/devices/\(device)/activities", body: body) as? [String: Any] ?? [:]
            if started["scheduled"] as? Bool == true {
                return Console.say("scheduled \(started["id"] as? String ?? "?") on \(device) to start at \(started["startedAt"] as? String ?? "?"); "
                                   + "its push token comes then (apnsim activity list)")
            }
            let reached = (started["channel"] as? String).map { "subscribed to channel \($0)" }
                ?? "push token \(started["token"] as? String ?? "none")"
            Console.say("started \(started["id"] as? String ?? "?") on \(device); \(reached)")
        }

        static func quoted(_ text: String) -> String {
            var json: [UInt8] = []
            JSONWriter.appendString(text, to: &json)
            return String(decoding: json, as: UTF8.self)
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "An app ends a Live Activity, as Activity.end does.")
        @OptionGroup var control: Control
        @Argument(help: "The activity's ID.") var id: String
        @Option(help: "The final content state, a JSON object; default: the last.") var state: String?
        @Option(name: .customLong("dismissal-date"), help: "When it leaves the Lock Screen, RFC 3339; default: four hours from now.")
        var dismissalDate: String?

        func run() async throws {
            var fields: [String] = []
            if let state {
                guard JSONObjectSyntax.object(Array(state.utf8)) != nil else { throw ActivityCommandError("--state is not a JSON object: \(state)") }
                fields.append(#""contentState":"# + state)
            }
            if let dismissalDate { fields.append(#""dismissalDate":"# + Start.quoted(dismissalDate)) }
            let ended = try await control.request("POST", "/v1/activities/\(id)/end", body: "{" + fields.joined(separator: ",") + "}")
            Console.say(ActivityCommand.line(ended as? [String: Any] ?? [:]))
        }
    }
}

/// A control-API answer or a bad argument, said in one sentence (not ArgumentParser's usage text).
struct ActivityCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
