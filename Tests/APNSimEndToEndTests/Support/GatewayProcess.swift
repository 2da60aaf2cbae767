import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation

/// `apnsim gateway` as its own process on ephemeral ports, with the committed `Certs/` and sandbox world (tests run
/// from the package root), and a provider token signed with the committed key.
struct GatewayProcess {
    let process: ApnsimProcess
    let providerPort: Int
    let controlPort: Int
    let devicePort: Int
    /// The development environment's channel management port.
    let managementPort: Int

    var control: ControlClient { ControlClient(port: controlPort) }

    static func start(store: String? = nil, devicePort: Int = 0, extra: [String] = [],
                      under wrapper: [String] = [], environment: [String: String?] = [:]) async throws -> GatewayProcess {
        var arguments = ["gateway", "--development-port", "0", "--production-port", "0", "--control-port", "0",
                         "--device-port", String(devicePort), "--log-level", "notice",
                         // It ends with this test process however that ends (ApnsimProcess keeps standard input open).
                         "--stop-when-stdin-closes"] + hangGuardTimeouts
        if let store { arguments += ["--store", store] }
        let process = try await ApnsimProcess(arguments + extra, under: wrapper, environment: environment)
        let banner = try await process.waitForOutput("CA to trust")
        guard let provider = ProcessStopTests.port(after: "development (sandbox) provider API  https://127.0.0.1:", in: banner),
              let control = ProcessStopTests.port(after: "control API                         http://127.0.0.1:", in: banner),
              let device = ProcessStopTests.port(after: "device link                         127.0.0.1:", in: banner),
              let management = ProcessStopTests.port(after: "development channel management API  https://127.0.0.1:", in: banner) else {
            throw HarnessError("the gateway's banner lacks a port:\n\(banner)")
        }
        return GatewayProcess(process: process, providerPort: provider, controlPort: control, devicePort: device, managementPort: management)
    }

    /// What a test's gateway process waits for a slow peer: the hang guard (as an in-process test gateway).
    static let hangGuardTimeouts = ["--handshake-timeout", String(HangGuard.limit.inSeconds),
                                    "--heartbeat-interval", String(HangGuard.limit.inSeconds / 3),
                                    "--install-wait", String(HangGuard.limit.inSeconds)]

    /// A connection to the provider port, or to the channel management port (`management`).
    func connect(management: Bool = false) async throws -> ProviderClient {
        try await ProviderClient.connect(.init(host: "127.0.0.1", port: management ? managementPort : providerPort, caFile: "Certs/ca.pem"))
    }

    /// A provider token signed with `Certs/AuthKey_SIMKEY0001.p8`; one per connection (a new one within 20 minutes
    /// is TooManyProviderTokenUpdates).
    static func jwt() throws -> String {
        let signer = try ProviderTokenSigner(p8: String(contentsOfFile: "Certs/AuthKey_SIMKEY0001.p8", encoding: .utf8),
                                             keyID: "SIMKEY0001", teamID: "SIMTEAM001")
        return signer.token(issuedAt: Date())
    }

    /// The headers of a token-auth alert push.
    static func headers(jwt: String, apnsID: String) -> [(name: String, value: String)] {
        [("authorization", "bearer \(jwt)"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-id", apnsID)]
    }
}
