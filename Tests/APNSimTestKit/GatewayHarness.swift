import APNSimGateway
import APNSimInbox
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimStore
import APNSimTestSupport
import APNSimTesting
import Foundation
import Logging

/// A real gateway on ephemeral loopback ports with a test PKI, a test world and a clock the test moves.
package struct GatewayHarness: Sendable {
    package let endpoints: Gateway.Endpoints
    package let clock: ManualClock
    package let gateway: Gateway
    package var pki: TestPKI { .shared }
    /// The gateway's control API, as a test in any language talks to it.
    package var control: ControlClient { ControlClient(port: endpoints.controlPort, timeout: HangGuard.limit) }

    /// A provider connection to one environment, with token auth unless a certificate is given.
    /// `management`: to the channel management API's port instead.
    package func connect(_ environment: APNsEnvironment = .development, certificate: (certificate: String, key: String)? = nil,
                         alpn: [String] = ["h2"], management: Bool = false) async throws -> ProviderClient {
        let port = management ? endpoints.managementPorts[environment]! : endpoints.providerPorts[environment]!
        var configuration = ProviderClient.Configuration(host: "127.0.0.1", port: port, caFile: pki.caFile)
        configuration.clientCertificate = certificate
        configuration.applicationProtocols = alpn
        return try await ProviderClient.connect(configuration)
    }

    /// A provider token for `keyID`, issued at the gateway clock's now (or `issuedAt`).
    package func jwt(_ keyID: String = TestWorld.teamKey, issuedAt: Date? = nil, format: ProviderTokenSigner.SignatureFormat = .raw) -> String {
        TestWorld.signer(keyID).token(issuedAt: issuedAt ?? clock.now, format: format)
    }

    /// The usual headers of a token-auth alert push.
    package func headers(jwt: String? = nil, topic: String? = "com.example.app", pushType: String? = "alert",
                         extra: [(name: String, value: String)] = []) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let jwt { headers.append(("authorization", "bearer \(jwt)")) }
        if let topic { headers.append(("apns-topic", topic)) }
        if let pushType { headers.append(("apns-push-type", pushType)) }
        return headers + extra
    }

    package static let alert = #"{"aps":{"alert":{"title":"Hello","body":"from a test"}}}"#

    /// Everything recorded so far, newest first.
    package func sends() async throws -> [SendRecord] {
        try await gateway.recorder.flush()
        return try await gateway.store.sends(matching: .init(limit: 10_000))
    }
}

/// Runs `body` against a fresh gateway; `configure` may change the configuration first.
@discardableResult
package func withGateway<T: Sendable>(_ configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in },
                                      world: World = TestWorld.make(), storePath: String? = nil, logger: Logger? = nil,
                                      _ body: @escaping @Sendable (GatewayHarness) async throws -> T) async throws -> T {
    let (gateway, clock) = try makeTestGateway(configure, world: world, storePath: storePath, logger: logger)
    return try await gateway.withRunning { endpoints in
        try await body(GatewayHarness(endpoints: endpoints, clock: clock, gateway: gateway))
    }
}

/// A gateway on ephemeral ports with the test PKI and a manual clock, not yet running; the timeouts that only guard
/// against a slow peer are the hang guard.
package func makeTestGateway(_ configure: @Sendable (inout GatewayConfiguration) -> Void = { _ in }, world: World = TestWorld.make(),
                             storePath: String? = nil, logger: Logger? = nil) throws -> (Gateway, ManualClock) {
    let pki = TestPKI.shared
    let clock = ManualClock(Date())
    var configuration = GatewayConfiguration(tls: .init(certificateChain: pki.tls.chain, privateKey: pki.tls.key,
                                                        providerCA: pki.caFile))
    configuration.ports = [.development: 0, .production: 0]
    configuration.managementPorts = [.development: 0, .production: 0]
    configuration.controlPort = 0
    configuration.devicePort = 0
    configuration.clock = .manual(clock)
    configuration.additions = [try Inbox()]  // as `apnsim gateway` serves it
    // No test is about these unless it sets them: a provider's TLS handshake under the whole suite's load took longer
    // than the product's 10 s, and the gateway closed connections tests were about to use.
    configuration.waitForSlowPeers(upTo: HangGuard.limit)
    configure(&configuration)
    let logger = logger ?? testLogger("apnsim.gateway.test")
    let gateway = try Gateway(configuration: configuration, world: WorldRegistry(world), store: try SQLiteStore(path: storePath), logger: logger)
    return (gateway, clock)
}
