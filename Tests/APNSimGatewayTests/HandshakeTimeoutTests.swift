@testable import APNSimGateway
import APNSimStore
import NIOCore
import NIOEmbedded
import Testing

/// The handshake timeout: a provider connection that has not finished its TLS handshake and HTTP/2 preface in time is
/// closed, here in an `EmbeddedChannel` with time moved by hand (the same over a real socket, and the test gateway's
/// own longer wait, are in the end-to-end tests' `HandshakeTimeoutOverSocketsTests`).
@Suite("Handshake timeout")
struct HandshakeTimeoutTests {
    @Test("A connection that has not begun HTTP/2 is closed when the handshake timeout runs out, not before",
          arguments: [GatewayConfiguration.ConnectionPolicy().handshakeTimeout, .milliseconds(250)])
    func closesWhenItRunsOut(_ timeout: Duration) async throws {
        var policy = GatewayConfiguration.ConnectionPolicy()
        policy.handshakeTimeout = timeout
        let connection = try ProviderConnectionHandlerTests.Connection(policy: policy, beforeHTTP2: true)
        connection.loop.advanceTime(by: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000
                                                     + timeout.components.attoseconds / 1_000_000_000 - 1))
        #expect(connection.isOpen, "a moment before the timeout")
        #expect(try await connection.connections().isEmpty)
        connection.loop.advanceTime(by: .nanoseconds(1))
        #expect(!connection.isOpen, "at the timeout")
        let record = try #require(try await connection.connections().first)
        #expect(record.event == .handshakeTimedOut)
        #expect(record.explanation.contains("TLS handshake was not done"), "\(record.explanation)")
    }
}
