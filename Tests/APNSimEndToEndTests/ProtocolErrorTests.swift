import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import Testing

/// HTTP/2 error semantics as RFC 9113 §5.4 puts them: a stream error resets that stream and nothing else; a
/// connection error is GOAWAY with the last stream the gateway acted on, then a close.
@Suite("Protocol errors", .endToEnd)
struct ProtocolErrorTests {
    static let certificateFields: [(name: String, value: String)] = [
        (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(TestWorld.devToken)"), (":authority", "localhost"),
        ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
    ]

    static func certificateConnection(_ harness: GatewayHarness) async throws -> RawConnection {
        try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!, tls: (harness.pki.caFile, ["h2"]),
                                        clientCertificate: try harness.pki.providerCertificate(.init()))
    }

    @Test("A stream error resets only its stream: the streams before and after it are answered 200, no GOAWAY",
          .hangGuard, arguments: [
        ("an upper-case header name", [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(TestWorld.devToken)"),
                                        (":authority", "localhost"), ("Apns-Topic", "com.example.app")]),
        ("a pseudo-header after a regular one", [(":method", "POST"), (":scheme", "https"), ("apns-topic", "com.example.app"),
                                                  (":path", "/3/device/\(TestWorld.devToken)"), (":authority", "localhost")]),
        ("no :path", [(":method", "POST"), (":scheme", "https"), (":authority", "localhost"), ("apns-topic", "com.example.app")]),
    ] as [(String, [(name: String, value: String)])])
    func streamErrorKeepsConnection(_ kind: String, _ badFields: [(name: String, value: String)]) async throws {
        try await withGateway { harness in
            let raw = try await Self.certificateConnection(harness)
            try await raw.send(clientPreface + rawPush(stream: 1, fields: Self.certificateFields)
                               + rawPush(stream: 3, fields: badFields) + rawPush(stream: 5, fields: Self.certificateFields)
                               + FlowControlTests.ping(9))
            let bytes = await raw.bytes(until: FlowControlTests.isPingAck(9))
            let responses = RawResponses(bytes)
            #expect(responses.statuses[1] == "200", "\(kind): the stream before")
            #expect(responses.resets[3] == 0x1, "\(kind): RST_STREAM PROTOCOL_ERROR on the bad stream")
            #expect(responses.statuses[5] == "200", "\(kind): the stream after")
            #expect(responses.goAway == nil, "\(kind): no GOAWAY")
            #expect(raw.channel.isActive, "\(kind): the connection stays open")
            await raw.close()
        }
    }

    @Test("100 pushes in flight on one connection, one of them malformed: 99 answered 200", .hangGuard)
    func hundredInFlight() async throws {
        try await withGateway { harness in
            let raw = try await Self.certificateConnection(harness)
            let streams = (0..<100).map { UInt32(2 * $0 + 1) }
            let malformed = streams[37]
            var bytes = clientPreface
            for stream in streams {
                bytes += stream == malformed
                    ? rawPush(stream: stream, fields: [("Upper-Case", "x")] + Self.certificateFields)
                    : rawPush(stream: stream, fields: Self.certificateFields)
            }
            try await raw.send(bytes + FlowControlTests.ping(3))
            let answered = RawResponses(await raw.bytes { bytes in
                let responses = RawResponses(bytes)
                return responses.statuses.count + responses.resets.count >= 100 || responses.goAway != nil
            })
            #expect(answered.statuses.count == 99)
            #expect(answered.statuses.values.allSatisfy { $0 == "200" })
            #expect(answered.resets == [malformed: 0x1])
            #expect(answered.goAway == nil)
            #expect(try await harness.sends().count == 99, "every answered push is recorded")
            await raw.close()
        }
    }

    @Test("DATA on an idle stream: GOAWAY PROTOCOL_ERROR naming the last stream answered, then the connection closes",
          .hangGuard)
    func connectionErrorCloses() async throws {
        try await withGateway { harness in
            let raw = try await Self.certificateConnection(harness)
            try await raw.send(clientPreface + rawPush(stream: 1, fields: Self.certificateFields)
                               + rawPush(stream: 3, fields: Self.certificateFields)
                               + http2Frame(type: 0x0, stream: 9, payload: [1, 2, 3]))
            let responses = RawResponses(await raw.bytesUntilClosed())
            #expect(responses.statuses == [1: "200", 3: "200"])
            let goAway = try #require(responses.goAway)
            #expect(goAway.errorCode == 0x1, "PROTOCOL_ERROR")
            #expect(goAway.lastStreamID == 3, "the last stream the gateway acted on, not 2^31-1")
            try await BadInputTests.stillServes(harness)
        }
    }

    @Test("Validly signed tokens whose iat is not a time get 403 InvalidProviderToken; the gateway keeps serving",
          .hangGuard)
    func iatOutOfRange() async throws {
        try await withGateway { harness in
            for iat in ["1e19", "-1e300", #""inf""#, #""-inf""#, #""nan""#] {
                let jwt = TestWorld.signer(TestWorld.teamKey).sign(header: #"{"alg":"ES256","kid":"SIMKEY0001"}"#,
                                                                   claims: #"{"iss":"SIMTEAM001","iat":\#(iat)}"#)
                let client = try await harness.connect()
                let response = try await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                           headers: harness.headers(jwt: jwt)))
                #expect(response.status == 403, "iat \(iat)")
                #expect(response.reason == "InvalidProviderToken", "iat \(iat)")
                await client.close()
            }
            let explanations = try await harness.sends().compactMap(\.explanation)
            #expect(explanations.count == 5)
            #expect(explanations.allSatisfy { $0.contains("is not a time") })
            try await BadInputTests.stillServes(harness)
        }
    }
}

/// Shutdown as a provider sees it: GOAWAY `{"reason":"Shutdown"}`, then the requests already in flight are answered.
@Suite("Graceful shutdown", .endToEnd)
struct GracefulShutdownTests {
    @Test("A request whose body is still arriving at shutdown is answered 200 after the GOAWAY, then the connection closes",
          .hangGuard)
    func inFlightFinishes() async throws {
        // The grace is the hang guard's: the request's last bytes come when this test's task runs again, which on a busy
        // machine can be after the product's 5 s. A test about the grace itself: ProviderConnectionHandlerTests.
        let (gateway, _) = try makeTestGateway { $0.connection.shutdownGrace = HangGuard.limit }
        let (ready, readySink) = AsyncStream.makeStream(of: Gateway.Endpoints.self)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: GatewayService(gateway: gateway, onReady: { readySink.yield($0) }),
                             successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: testLogger("apnsim.gateway.test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ready.makeAsyncIterator()
            let endpoints = try #require(await iterator.next())
            let raw = try await RawConnection.connect(port: endpoints.providerPorts[.development]!,
                                                      tls: (TestPKI.shared.caFile, ["h2"]),
                                                      clientCertificate: try TestPKI.shared.providerCertificate(.init()))
            let body = Array(GatewayHarness.alert.utf8)
            try await raw.send(clientPreface
                               + http2Frame(type: 0x1, flags: 0x4, stream: 1, payload: hpackLiterals(ProtocolErrorTests.certificateFields))
                               + http2Frame(type: 0x0, stream: 1, payload: Array(body[..<10])) + FlowControlTests.ping(1))
            _ = await raw.bytes(until: FlowControlTests.isPingAck(1))

            await group.triggerGracefulShutdown()
            let beforeEnd = RawResponses(await raw.bytes { RawResponses($0).goAway != nil })
            let goAway = try #require(beforeEnd.goAway)
            #expect(goAway.debug == #"{"reason":"Shutdown"}"#)
            #expect(goAway.errorCode == 0)
            #expect(goAway.lastStreamID == 1)
            #expect(beforeEnd.statuses[1] == nil, "not answered before its body is complete")

            try await raw.send(http2Frame(type: 0x0, flags: 0x1, stream: 1, payload: Array(body[10...])))
            let responses = RawResponses(await raw.bytesUntilClosed())
            #expect(responses.statuses[1] == "200", "the request in flight is answered")
            try await tasks.waitForAll()
        }
    }
}
