import APNSimCore
import APNSimGateway
import ArgumentParser
import Foundation

/// `apnsim up`: the sandbox. Today the gateway with the sandbox world and everything a newcomer needs to send a
/// first push; simulated devices join it with the device issue.
struct UpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the apnsim sandbox and print how to send it a push."
    )

    @OptionGroup var options: GatewayOptions

    func run() async throws {
        let gateway = try options.makeGateway()
        let certs = options.certs
        let tokens = gateway.world.read { world in
            world.tokens.values.filter { $0.state == .active }.sorted { $0.environment.rawValue < $1.environment.rawValue }
        }
        try await runUntilSignalled(gateway, logger: options.logger) { endpoints in
            let control = "http://\(gateway.configuration.controlHost):\(endpoints.controlPort)/v1"
            var lines = [
                "apnsim sandbox is up",
                "",
                "  development (sandbox) provider API  \(endpoints.url(.development))",
                "  production provider API             \(endpoints.url(.production))",
                "  control API                         \(control)   (GET /sends shows every push and its verdict)",
                "  CA to trust                         \(certs)/ca.pem",
                "  token auth                          team SIMTEAM001, key SIMKEY0001, \(certs)/AuthKey_SIMKEY0001.p8",
                "  certificate auth                    \(certs)/provider-development.pem + -key.pem (and provider-production…)",
                "",
                "  device tokens (com.example.app):",
            ]
            lines += tokens.map { "    \($0.environment.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.token.hex)" }
            if let token = tokens.first(where: { $0.environment == .development }) {
                let port = endpoints.providerPorts[.development] ?? 2197
                lines += [
                    "",
                    "  send a push:",
                    "    swift run apnsim send --token \(token.token.hex)\(port == 2197 ? "" : " --port \(port)")",
                    "  or with curl (see README.md for the JWT recipe):",
                    "    curl --http2 --cacert \(certs)/ca.pem --resolve api.sandbox.push.apple.com:\(port):127.0.0.1 \\",
                    "      -H \"authorization: bearer $JWT\" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \\",
                    "      -d '{\"aps\":{\"alert\":\"Hello\"}}' https://api.sandbox.push.apple.com:\(port)/3/device/\(token.token.hex)",
                    "  then: curl \(control)/sends",
                ]
            }
            lines += ["", "Ctrl-C stops it."]
            Console.say(lines.joined(separator: "\n"))
        }
    }
}
