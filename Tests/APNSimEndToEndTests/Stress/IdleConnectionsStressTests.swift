import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import Testing

extension Stress {
    @Suite("Stress: idle connections")
    struct IdleConnectionsStressTests {
        /// The handshake timeout is the product's (10 s), not the test gateways' hang guard: the test is about it. The
        /// HTTP/2 connections are made first, on a quiet gateway, so none of them races it; the 2,000 stalled ones then
        /// cost the gateway nothing until it lets them go.
        @Test("100 idle HTTP/2 connections, then 2,000 left idle mid-handshake: the gateway keeps serving and lets the stalled ones go")
        func manyIdleConnections() async throws {
            try await withGateway({ $0.connection.handshakeTimeout = GatewayConfiguration.ConnectionPolicy().handshakeTimeout }) { harness in
                let port = harness.endpoints.providerPorts[.development]!
                var idle: [ProviderClient] = []
                for _ in 0..<100 { idle.append(try await harness.connect()) }
                var stalled: [RawConnection] = []
                for _ in 0..<2000 { stalled.append(try await RawConnection.connect(port: port)) }
                try await BadInputTests.stillServes(harness)
                // The stalled ones are let go by the handshake timeout; the HTTP/2 ones stay open.
                for connection in stalled { _ = await connection.bytesUntilClosed() }
                let open = idle.filter(\.isActive).count
                #expect(open == idle.count, "\(idle.count - open) of the idle HTTP/2 connections were closed")
                try await BadInputTests.stillServes(harness)
                for client in idle { await client.close() }
            }
        }
    }
}
