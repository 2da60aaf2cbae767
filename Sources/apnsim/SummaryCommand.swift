import ArgumentParser
import Foundation

/// `apnsim summary DEVICE --at HH:mm… [--app BUNDLE]… [--time-zone ZONE]`, `--off` or `--deliver`: the user's Scheduled
/// Summary on a device (docs/interactions.md, "Scheduled Summary").
struct SummaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary",
        abstract: "Set a device's Scheduled Summary, turn it off, or deliver it now; --deliver prints what it delivered, in order.")
    @OptionGroup var control: ActivityCommand.Control
    @Argument(help: "The device's ID.") var device: String
    @Option(name: .customLong("at"), help: "A time of day the summary comes, HH:mm (repeat for more, up to 12).") var times: [String] = []
    @Option(name: .customLong("app"), help: "An app in the summary, by bundle ID (repeat for more; every app when none).") var apps: [String] = []
    @Option(name: .customLong("time-zone"), help: "The IANA time zone of the times (UTC unless given).") var timeZone: String?
    @Flag(help: "Turn the summary off.") var off = false
    @Flag(help: "Deliver the summary now, as if its time had come.") var deliver = false

    func run() async throws {
        switch (off, deliver, times.isEmpty) {
        case (true, false, true):
            _ = try await control.request("DELETE", "/v1/devices/\(device)/summary")
            Console.say("\(device): Scheduled Summary off")
        case (false, true, true):
            let summary = try await control.request("POST", "/v1/devices/\(device)/summary/deliver") as? [String: Any] ?? [:]
            Console.say(summary["detail"] as? String ?? "\(device): the summary was delivered")
            for (rank, item) in (summary["notifications"] as? [[String: Any]] ?? []).enumerated() {
                let text = [item["title"], item["body"]].compactMap { $0 as? String }.joined(separator: ": ")
                Console.say("\(rank + 1). \(item["bundleID"] as? String ?? "") \(item["apnsId"] as? String ?? "") "
                            + "(relevance \(item["relevanceScore"] as? Double ?? 0)) \(text)")
            }
        case (false, false, false):
            var body: [String: Any] = ["times": times]
            if !apps.isEmpty { body["apps"] = apps }
            body["timeZone"] = timeZone
            let json = String(decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]), as: UTF8.self)
            _ = try await control.request("POST", "/v1/devices/\(device)/summary", body: json)
            Console.say("\(device): Scheduled Summary at \(times.joined(separator: ", ")) \(timeZone ?? "UTC")"
                        + (apps.isEmpty ? " for every app" : " for \(apps.joined(separator: ", "))"))
        default:
            throw ActivityCommandError("give the summary's times (--at 08:00 --at 18:00), --off, or --deliver: one of them")
        }
    }
}
