import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// Connection-level behaviour: PING, idle and shutdown GOAWAYs.
@Suite("Connection behaviour", .endToEnd)
struct ConnectionTests {
    @Test("PING is answered")
    func ping() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            try await client.ping()
            await client.close()
        }
    }

    /// A one-second idle timeout races a busy machine: the timer may fire before the request is read (the client was
    /// slow to send it), and then the gateway rightly serves nothing. Either way the GOAWAY names the last stream it
    /// served, which is what is checked; which way the race went is not.
    @Test("An idle connection gets GOAWAY {\"reason\":\"IdleTimeout\"} with the last stream it served, then is closed",
          .hangGuard)
    func idleTimeout() async throws {
        try await withGateway({ $0.connection.idleTimeout = .seconds(1) }) { harness in
            let headers = harness.headers(jwt: harness.jwt())
            let client = try await harness.connect()
            let served = (try? await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: headers)))?.status
            #expect(served == nil || served == 200)
            let goAway = try #require(await client.goAway())
            #expect(goAway.debugData == #"{"reason":"IdleTimeout"}"#)
            #expect(goAway.lastStreamID == (served == 200 ? 1 : 0), "answered \(served.map(String.init) ?? "nothing")")
            await client.closed()
        }
    }

    /// The idle timeout is HTTP/2's: a client slower to start HTTP/2 than the idle timeout (a busy machine) is not
    /// closed before it has begun, silently; the handshake timeout (10 s) governs until then. The idle timer is the
    /// event loop's, so the test waits for a signal that it has fired: other connections, opened after the slow one
    /// and starting HTTP/2 at once, getting their own GOAWAY IdleTimeout. However slow the machine, the slow
    /// connection has then been idle at least as long.
    @Test("A client slower to start HTTP/2 than the idle timeout is not closed before it begins, and gets GOAWAY IdleTimeout once idle",
          .hangGuard)
    func idleBeforeHTTP2() async throws {
        try await withGateway({ $0.connection.idleTimeout = .milliseconds(200) }) { harness in
            // No ALPN: the gateway waits for the HTTP/2 preface, past several idle periods.
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!, tls: (harness.pki.caFile, []))
            // Two in a row: the second starts after the first's GOAWAY, so the slow connection's handshake (its last
            // read) is long done before the second's idle period begins.
            for _ in 1...2 {
                let witness = try await harness.connect()
                #expect(await witness.goAway()?.debugData == #"{"reason":"IdleTimeout"}"#)
            }
            try? await raw.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + http2Frame(type: 0x4, stream: 0, payload: []))
            let frames = http2Frames(in: await raw.bytesUntilClosed())
            let goAway = try #require(frames.first { $0.type == 0x7 }, "closed without GOAWAY: \(frames.map(\.type))")
            #expect(String(decoding: goAway.payload.dropFirst(8), as: UTF8.self) == #"{"reason":"IdleTimeout"}"#)
        }
    }

    @Test("Stopping the gateway sends GOAWAY {\"reason\":\"Shutdown\"} to open connections")
    func shutdown() async throws {
        let client = try await withGatewayReturning { harness in try await harness.connect() }
        let goAway = await client.goAway()
        #expect(goAway?.debugData == #"{"reason":"Shutdown"}"#)
        await client.closed()
    }
}

/// Like `withGateway`, but hands a value out of the gateway's lifetime (to observe what happens when it stops).
func withGatewayReturning<T: Sendable>(_ body: @escaping @Sendable (GatewayHarness) async throws -> T) async throws -> T {
    let box = ResultBox<T>()
    try await withGateway { harness in box.value = try await body(harness) }
    return box.value!
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    // Written once inside the gateway's lifetime, read after it ended.
    var value: T?
}
