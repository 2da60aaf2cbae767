import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// Bad input is answered, not crashed on, and the gateway keeps serving afterwards.
@Suite("Bad input", .endToEnd)
struct BadInputTests {
    /// A valid push on a new connection: the gateway is still up and serving.
    static func stillServes(_ harness: GatewayHarness) async throws {
        let client = try await harness.connect()
        let response = try await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                   headers: harness.headers(jwt: harness.jwt())))
        #expect(response.status == 200)
        await client.close()
    }

    @Test("Garbage bytes instead of a TLS ClientHello: the connection is closed", .hangGuard)
    func garbageInsteadOfTLS() async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!)
            try await raw.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + (0..<512).map { UInt8($0 % 251) })
            _ = await raw.bytesUntilClosed()
            try await Self.stillServes(harness)
        }
    }

    @Test("A TLS client that speaks HTTP/1.1 gets 505 with an explanation", .hangGuard)
    func http1OverTLS() async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!,
                                                      tls: (harness.pki.caFile, ["http/1.1"]))
            try await raw.send(Array("POST /3/device/\(TestWorld.devToken) HTTP/1.1\r\nHost: localhost\r\ncontent-length: 2\r\n\r\n{}".utf8))
            let answer = String(decoding: await raw.bytesUntilClosed(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 505 HTTP Version Not Supported\r\n"))
            #expect(answer.contains("HTTP/2 only"))
            try await Self.stillServes(harness)
        }
    }

    @Test("Malformed HTTP/2 frames get GOAWAY PROTOCOL_ERROR or FRAME_SIZE_ERROR and a close", .hangGuard, arguments: [
        // DATA on stream 0.
        [0, 0, 4, 0x0, 0x1, 0, 0, 0, 0, 1, 2, 3, 4],
        // A frame longer than SETTINGS_MAX_FRAME_SIZE.
        [0x01, 0, 0, 0x1, 0x4, 0, 0, 0, 1],
        // SETTINGS with a length that is not a multiple of 6.
        [0, 0, 5, 0x4, 0x0, 0, 0, 0, 0, 1, 2, 3, 4, 5],
        // HEADERS whose block is not valid HPACK.
        [0, 0, 4, 0x1, 0x5, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff],
    ] as [[UInt8]])
    func malformedFrames(_ frame: [UInt8]) async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!,
                                                      tls: (harness.pki.caFile, ["h2"]))
            let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 0x4, 0, 0, 0, 0, 0]
            try await raw.send(preface + frame)
            let frames = http2Frames(in: await raw.bytesUntilClosed())
            let goAway = try #require(frames.first { $0.type == 0x7 })
            let errorCode = goAway.payload[4...7].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect([0x1, 0x6, 0x9].contains(errorCode), "PROTOCOL_ERROR, FRAME_SIZE_ERROR or COMPRESSION_ERROR; got \(errorCode)")
            try await Self.stillServes(harness)
        }
    }

    @Test("A 10 MB body is answered 413 after reading at most one flow-control window", .hangGuard)
    func tenMegabytes() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16_384)
            let response = try await client.send(.init(headers: ProviderRequest.push(token: TestWorld.devToken, payload: nil,
                                                                                     headers: harness.headers(jwt: harness.jwt())).headers,
                                                       chunks: Array(repeating: chunk, count: 640)))
            #expect(response.status == 413)
            #expect(response.reason == "PayloadTooLarge")
            let recorded = try #require(try await harness.sends().first)
            #expect(recorded.payloadBytes <= 4096 + 65_535, "read \(recorded.payloadBytes) bytes of a 10 MB body")
            #expect((recorded.payload?.utf8.count ?? 0) <= 4096, "kept no more than the limit")
            // The same connection keeps working.
            #expect(try await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                headers: harness.headers(jwt: harness.jwt()))).status != 413)
            await client.close()
            try await Self.stillServes(harness)
        }
    }
}
