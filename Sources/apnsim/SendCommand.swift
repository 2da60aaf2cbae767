import APNSimRules
import APNSimProvider
import ArgumentParser
import Foundation

/// `apnsim send`: a provider client. Signs a JWT from a .p8 (or uses a client certificate), sends one push and
/// prints what APNs (or apnsim) answered.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Send one push to an APNs-style gateway and print status, apns-id and reason.",
        discussion: """
        Token auth (default): signs an ES256 JWT with --p8, --key-id and --team-id.
        Certificate auth: give --cert and --cert-key; no authorization header is sent.
        Exits 0 when the push was accepted (200), 1 otherwise.
        """
    )

    @Option(help: "The device token (hex).")
    var token: String

    @Option(help: "development or production: picks the default port.")
    var environment: APNsEnvironment = .development



    @Option(help: "apns-topic (empty to omit).")
    var topic = "com.example.app"

    @Option(name: .customLong("push-type"), help: "apns-push-type (empty to omit).")
    var pushType = "alert"

    @Option(help: "apns-priority.")
    var priority: String?

    @Option(help: "apns-expiration (UNIX seconds; 0 = deliver once, never store).")
    var expiration: String?

    @Option(name: .customLong("collapse-id"), help: "apns-collapse-id.")
    var collapseID: String?

    @Option(name: .customLong("apns-id"), help: "apns-id (a UUID); the gateway generates one when omitted.")
    var apnsID: String?

    @Option(name: .customLong("header"), help: "Any extra header as name:value; repeatable.")
    var extraHeaders: [String] = []

    @Option(help: "The JSON payload.")
    var payload = #"{"aps":{"alert":{"title":"apnsim","body":"Hello from apnsim"}}}"#

    @Option(name: .customLong("payload-file"), help: "Read the payload from this file instead.")
    var payloadFile: String?


    @OptionGroup var provider: ProviderOptions

    func validate() throws {
        for header in extraHeaders where !header.contains(":") {
            throw ValidationError("--header takes name:value; got '\(header)'")
        }
    }

    func run() async throws {
        var headers: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) {
            if let value, !value.isEmpty { headers.append((name, value)) }
        }
        add("apns-topic", topic)
        add("apns-push-type", pushType)
        add("apns-priority", priority)
        add("apns-expiration", expiration)
        add("apns-collapse-id", collapseID)
        add("apns-id", apnsID)
        for header in extraHeaders {
            let (name, value) = header.split(separator: ":", maxSplits: 1).map(String.init).pair
            add(name.lowercased().trimmingCharacters(in: .whitespaces), value.trimmingCharacters(in: .whitespaces))
        }

        let body = try payloadFile.map { try readFile($0, what: "the payload file") } ?? payload
        let response = try await provider.send(token: token, payload: body, headers: headers, environment: environment)
        try ProviderOptions.report(response)
    }
}

extension APNsEnvironment: ExpressibleByArgument {}

private extension Array where Element == String {
    var pair: (String, String) { (self.first ?? "", count > 1 ? self[1] : "") }
}
