import APNSimRules
import ArgumentParser
import Foundation

/// `apnsim tap DEVICE APNS_ID [--action ID] [--text TEXT]`: the user taps a displayed notification, or one of its buttons
/// (with what they typed, for a text-input action), through the control API (docs/interactions.md).
struct TapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tap",
        abstract: "Tap a notification a device shows, or one of its buttons; prints what the app did.")
    @OptionGroup var control: ActivityCommand.Control
    @Argument(help: "The device's ID.") var device: String
    @Argument(help: "The push's apns-id, as its delivery record shows it.") var apnsID: String
    @Option(help: "The identifier of the button to press instead of the notification.") var action: String?
    @Option(help: "What the user types, for a text-input action.") var text: String?

    func run() async throws {
        var body: [String: String] = ["apnsId": apnsID]
        body["action"] = action
        body["text"] = text
        let answer = try await control.request("POST", "/v1/devices/\(device)/tap", body: InteractionLine.json(body))
        Console.say(InteractionLine.of(answer))
    }
}

/// `apnsim dismiss DEVICE APNS_ID`: the user dismisses a displayed notification.
struct DismissCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss",
        abstract: "Dismiss a notification a device shows; prints whether the app was told.")
    @OptionGroup var control: ActivityCommand.Control
    @Argument(help: "The device's ID.") var device: String
    @Argument(help: "The push's apns-id, as its delivery record shows it.") var apnsID: String

    func run() async throws {
        let answer = try await control.request("POST", "/v1/devices/\(device)/dismiss", body: InteractionLine.json(["apnsId": apnsID]))
        Console.say(InteractionLine.of(answer))
    }
}

/// The one line `apnsim tap` and `apnsim dismiss` print: the record's sentence, and what was opened and reported.
enum InteractionLine {
    static func of(_ answer: Any) -> String {
        let record = answer as? [String: Any] ?? [:]
        return record["detail"] as? String ?? "the gateway answered \(record)"
    }

    static func json(_ body: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }
}

/// `apnsim focus DEVICE NAME [--allow APP]…` or `apnsim focus DEVICE --off`: the user turns a Focus on or off
/// (docs/interactions.md, "Focus and interruption levels").
struct FocusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus",
        abstract: "Turn a Focus on a device on (Do Not Disturb, Sleep, Work or any name) or off.")
    @OptionGroup var control: ActivityCommand.Control
    @Argument(help: "The device's ID.") var device: String
    @Argument(help: "The Focus's name, such as Work.") var name: String?
    @Option(name: .customLong("allow"), help: "An app the Focus lets through, by bundle ID (repeat for more).") var allowed: [String] = []
    @Flag(help: "Turn the Focus off.") var off = false

    func validate() throws {
        if off, name != nil { throw ValidationError("give a Focus's name or --off, not both") }
        if !off, name == nil { throw ValidationError("give the Focus's name (such as Work), or --off") }
    }

    func run() async throws {
        if off {
            _ = try await control.request("DELETE", "/v1/devices/\(device)/focus")
            Console.say("\(device): Focus off")
            return
        }
        let body = (try? JSONSerialization.data(withJSONObject: ["name": name ?? "", "allowedApps": allowed], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        _ = try await control.request("POST", "/v1/devices/\(device)/focus", body: body)
        Console.say("\(device): Focus \(name ?? "") on" + (allowed.isEmpty ? "; it lets no app through" : "; it lets \(allowed.joined(separator: ", ")) through"))
    }
}
