import APNSimCore
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

    @Option(help: "Gateway host.")
    var host = "127.0.0.1"

    @Option(help: "Gateway port (default 2197 for development, 2198 for production).")
    var port: Int?

    @Option(name: .customLong("server-name"), help: "TLS server name to check the gateway certificate against.")
    var serverName = "api.sandbox.push.apple.com"

    @Option(help: "CA that issued the gateway certificate.")
    var ca = "Certs/ca.pem"

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

    @Option(help: "Provider signing key (.p8) for token auth.")
    var p8 = "Certs/AuthKey_SIMKEY0001.p8"

    @Option(name: .customLong("key-id"), help: "Key ID of the .p8.")
    var keyID = "SIMKEY0001"

    @Option(name: .customLong("team-id"), help: "Team ID that owns the key.")
    var teamID = "SIMTEAM001"

    @Option(help: "Client certificate (PEM) for certificate auth.")
    var cert: String?

    @Option(name: .customLong("cert-key"), help: "Private key (PEM) of --cert.")
    var certKey: String?

    func validate() throws {
        if (cert == nil) != (certKey == nil) { throw ValidationError("--cert and --cert-key go together") }
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

        var configuration = ProviderClient.Configuration(host: host, port: port ?? (environment == .development ? 2197 : 2198), caFile: ca)
        configuration.serverHostname = serverName
        if let cert, let certKey {
            configuration.clientCertificate = (cert, certKey)
        } else {
            let signer = try ProviderTokenSigner(p8: try readFile(p8, what: "the .p8 key"), keyID: keyID, teamID: teamID)
            add("authorization", "bearer \(signer.token(issuedAt: Date()))")
        }
        let body = try payloadFile.map { try readFile($0, what: "the payload file") } ?? payload

        let client = try await ProviderClient.connect(configuration)
        let response = try await client.send(.push(token: token, payload: body, headers: headers))
        await client.close()

        print("status: \(response.status)")
        print("apns-id: \(response["apns-id"] ?? "-")")
        if let uniqueID = response["apns-unique-id"] { print("apns-unique-id: \(uniqueID)") }
        if response.status != 200 {
            print("body: \(response.bodyText)")
            throw ExitCode(1)
        }
    }

    private func readFile(_ path: String, what: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("cannot read \(what) at \(path): \(error.localizedDescription)")
        }
    }
}

extension APNsEnvironment: ExpressibleByArgument {}

private extension Array where Element == String {
    var pair: (String, String) { (self.first ?? "", count > 1 ? self[1] : "") }
}
