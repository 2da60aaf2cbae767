@testable import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// The handshake timeout over real sockets: a provider connection that has not finished its TLS handshake and HTTP/2
/// preface in time is closed. A rule of the product, so tests that are not about it must never meet it: under the
/// whole suite's load on two cores a handshake took longer than the product's 10 s, and every end-to-end test could
/// fail with "the connection closed before the request could be sent".
@Suite("Handshake timeout over sockets")
struct HandshakeTimeoutOverSocketsTests {
    /// Fails with the gateway's own 10 s: the test gateway's connection was closed at 10 s of a slow handshake. That a
    /// connection is closed when its handshake timeout runs out, and not before, is APNSimGatewayTests' HandshakeTimeoutTests.
    @Test("A test gateway waits for a slow handshake as long as the hang guard, past the product's 10 s")
    func testGatewaysWait() throws {
        let (gateway, _) = try makeTestGateway()
        let product = GatewayConfiguration.ConnectionPolicy().handshakeTimeout
        #expect(gateway.configuration.connection.handshakeTimeout > product)
        #expect(gateway.configuration.connection.handshakeTimeout >= HangGuard.limit)
    }

    @Test("A real connection that sends nothing is closed at the handshake timeout, in process and as apnsim gateway --handshake-timeout",
          .endToEnd)
    func stalledConnectionClosed() async throws {
        // No TLS hello at all: the gateway waits for one, then gives up. What is waited for is the close, never a time.
        try await withGateway({ $0.connection.handshakeTimeout = .milliseconds(200) }) { harness in
            let stalled = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!)
            #expect(await stalled.bytesUntilClosed().isEmpty, "closed without a byte: there is no TLS to answer in")
        }
        // A later option wins over GatewayProcess's hang-guard timeouts.
        let gateway = try await GatewayProcess.start(extra: ["--handshake-timeout", "0.5"])
        let stalled = try await RawConnection.connect(port: gateway.providerPort)
        #expect(await stalled.bytesUntilClosed().isEmpty)
        _ = try await gateway.process.waitForOutput("TLS handshake and HTTP/2 preface not done in time")
        await gateway.process.stop()
    }
}
