import ArgumentParser
import Foundation

/// `apnsim delivery-log ID`: a push as Apple's Push Notifications Console finds it, by its `apns-unique-id` (or its
/// `apns-id`): the provider's request and what became of it on each device, with the Console's state
/// (docs/records.md, "Push Notifications Console").
struct DeliveryLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delivery-log",
        abstract: "Find a push by its apns-unique-id (or apns-id) and print its request and its Console state on each device.")
    @OptionGroup var control: ActivityCommand.Control
    @Argument(help: "The push's apns-unique-id, as the gateway answered it in development, or its apns-id.") var id: String

    func run() async throws {
        let query = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "-"))) ?? id
        var key = "uniqueId"
        var sends = try await control.request("GET", "/v1/sends?uniqueId=\(query)") as? [[String: Any]] ?? []
        if sends.isEmpty {
            key = "apnsId"
            sends = try await control.request("GET", "/v1/sends?apnsId=\(query)") as? [[String: Any]] ?? []
        }
        guard let send = sends.first else {
            throw ActivityCommandError("no push the gateway answered has the apns-unique-id or apns-id \(id)")
        }
        let status = send["status"] as? Int ?? 0
        Console.say("push \(send["apnsID"] as? String ?? id): \(status)\((send["reason"] as? String).map { " \($0)" } ?? "")"
                    + " at \(send["receivedAt"] as? String ?? "")" + ((send["uniqueId"] as? String).map { ", apns-unique-id \($0)" } ?? ""))
        let deliveries = try await control.request("GET", "/v1/deliveries?\(key)=\(query)") as? [[String: Any]] ?? []
        if deliveries.isEmpty { Console.say(status == 200 ? "  no device holds its token" : "  refused: it went to no device") }
        for delivery in deliveries {
            let state = delivery["consoleState"] as? String ?? "on its way"
            let outcome = (delivery["outcome"] as? String).map { " (\($0))" } ?? ""
            let stored = (delivery["storedAt"] as? String).map { ", stored \($0)" } ?? ""
            Console.say("  \(delivery["device"] as? String ?? "") \(delivery["bundleID"] as? String ?? ""): \(state)\(outcome)\(stored)"
                        + ((delivery["detail"] as? String).map { ": \($0)" } ?? ""))
        }
    }
}
