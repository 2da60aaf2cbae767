import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// The connection-level receive window, which the gateway has to replenish itself (it reads frames directly).
@Suite("Flow control", .endToEnd)
struct FlowControlTests {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + http2Frame(type: 0x4, stream: 0, payload: [])
    static let settingsAck = http2Frame(type: 0x4, flags: 0x1, stream: 0, payload: [])
    static func ping(_ byte: UInt8) -> [UInt8] { http2Frame(type: 0x6, stream: 0, payload: [UInt8](repeating: byte, count: 8)) }
    static func isPingAck(_ byte: UInt8) -> @Sendable ([UInt8]) -> Bool {
        { bytes in http2Frames(in: bytes).contains { $0.type == 0x6 && $0.payload == [UInt8](repeating: byte, count: 8) } }
    }

    @Test("Body bytes that arrive after the gateway reset their stream still come back as connection window")
    func windowAfterReset() async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!,
                                                      tls: (harness.pki.caFile, ["h2"]))
            let head = hpackLiterals([
                (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(TestWorld.devToken)"),
                (":authority", "localhost"), ("authorization", "bearer \(harness.jwt())"),
                ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
            ])
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            // An oversized body: the gateway answers 413 and resets stream 1 once the answer is written.
            try await raw.send(Self.preface + Self.settingsAck + http2Frame(type: 0x1, flags: 0x4, stream: 1, payload: head)
                               + http2Frame(type: 0x0, stream: 1, payload: chunk) + http2Frame(type: 0x0, stream: 1, payload: chunk))
            let beforeReset = await raw.bytes { bytes in http2Frames(in: bytes).contains { $0.type == 0x3 && $0.stream == 1 } }
            #expect(http2Frames(in: beforeReset).contains { $0.type == 0x3 && $0.stream == 1 }, "RST_STREAM for the oversized body")

            // 40,000 more bytes for the reset stream: HTTP/2 drops them, but they still spend the connection
            // window (RFC 9113 §6.9), which then falls under half of 65,535 and must be topped up.
            let late = (0..<10).flatMap { _ in http2Frame(type: 0x0, stream: 1, payload: [UInt8](repeating: 0x79, count: 4000)) }
            try await raw.send(late + Self.ping(7))
            let afterLate = await raw.bytes(until: Self.isPingAck(7))
            let increments = http2Frames(in: afterLate).filter { $0.type == 0x8 && $0.stream == 0 }
                .map { $0.payload.reduce(0) { $0 << 8 | Int($1) } & 0x7fff_ffff }
            let spent = 2 * 4096 + 10 * 4000
            #expect(spent - increments.reduce(0, +) <= 65_535 / 2,
                    "the connection window is never left under half: \(spent) bytes sent, increments \(increments)")
            await raw.close()
            try await BadInputTests.stillServes(harness)
        }
    }
}
