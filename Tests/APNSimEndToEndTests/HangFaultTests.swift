import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import NIOCore
import Testing

/// `hang` faults (docs/faults.md): the gateway stops where a provider library has been seen to hang, and serves
/// every other connection meanwhile. Each test shows what the held connection received by reading it after a
/// round trip that orders after anything the gateway would have written to it, never by waiting for a time.
@Suite("Hang faults", .endToEnd)
struct HangFaultTests {
    static let preface = FlowControlTests.preface, settingsAck = FlowControlTests.settingsAck
    static func ping(_ byte: UInt8) -> [UInt8] { FlowControlTests.ping(byte) }
    static func pingAcked(_ byte: UInt8) -> @Sendable ([UInt8]) -> Bool { FlowControlTests.isPingAck(byte) }

    /// Returns once a connection is held at its handshake (its HANG record is written when the gateway takes it).
    static func untilHeld(_ harness: GatewayHarness) async throws {
        try await harness.control.waitUntil("a connection is held at its handshake") {
            (try? await harness.sends())?.contains { $0.method == "HANG" && $0.explanation?.contains("TLS handshake is held") == true } == true
        }
    }

    static func hang(_ point: HangPoint, after: Int? = nil, token: String? = nil) -> Fault {
        var fault = Fault(kind: .hang, token: token)
        fault.at = .hang(point)
        fault.after = after
        return fault
    }

    /// HEADERS and DATA of one push on `stream`, in raw frames.
    static func push(stream: UInt32, token: String, alert: String, jwt: String) -> [UInt8] {
        let head = hpackLiterals([
            (":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", "localhost"),
            ("authorization", "bearer \(jwt)"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
            ("apns-id", apnsID(alert)),
        ])
        return http2Frame(type: 0x1, flags: 0x4, stream: stream, payload: head)
            + http2Frame(type: 0x0, flags: 0x1, stream: stream, payload: Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8))
    }

    /// A fixed apns-id per alert text, to find each push in the records.
    static func apnsID(_ alert: String) -> String {
        let hex = alert.utf8.map { String($0, radix: 16) }.joined().padding(toLength: 12, withPad: "0", startingAt: 0).prefix(12)
        return "00000000-0000-4000-8000-\(hex)".uppercased()
    }

    static func answered(_ stream: UInt32) -> @Sendable ([UInt8]) -> Bool {
        { bytes in http2Frames(in: bytes).contains { $0.type == 0x1 && $0.stream == stream } }
    }

    @Test("hang at handshake: the accepted connection's ClientHello is never answered, and the next connection is served")
    func handshake() async throws {
        try await withGateway { harness in
            try await harness.gateway.inject([Self.hang(.handshake)])
            let held = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!)
            // Not a TLS ClientHello: a gateway that read it would answer with an alert and close at once.
            try await held.send(Array("not a ClientHello\r\n".utf8) + (0..<256).map { UInt8($0 % 251) })
            // Connections are set up on the event loops in any order: the next one waits until the fault took this one.
            try await Self.untilHeld(harness)
            try await BadInputTests.stillServes(harness)  // the fault took one connection; this one is served
            #expect(held.channel.isActive, "the held connection is still open")
            await held.close()
            #expect(await held.bytesUntilClosed().isEmpty, "nothing was written to the held connection")
        }
    }

    @Test("hang at response: the push's stream is never answered and the push is not processed; the next stream on the same connection is answered")
    func response() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"]).hex
                let jwt = harness.jwt()
                let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!, tls: (harness.pki.caFile, ["h2"]))
                // One push first: its valid token raises the connection's streams from 1 (MAX_CONCURRENT_STREAMS).
                try await raw.send(Self.preface + Self.settingsAck + Self.push(stream: 1, token: token, alert: "first", jwt: jwt))
                _ = await raw.bytes(until: Self.answered(1))
                try await harness.gateway.inject([Self.hang(.response)])
                try await raw.send(Self.settingsAck + Self.push(stream: 3, token: token, alert: "held", jwt: jwt)
                                   + Self.push(stream: 5, token: token, alert: "answered", jwt: jwt))
                _ = await raw.bytes(until: Self.answered(5))
                // The PING's ACK comes after anything written for stream 3, which the gateway read first.
                try await raw.send(Self.ping(1))
                let bytes = await raw.bytes(until: Self.pingAcked(1))
                #expect(!http2Frames(in: bytes).contains { $0.stream == 3 }, "no frame on the held stream")
                let sends = try await harness.sends()
                let held = try #require(sends.first { $0.payload?.contains("held") == true })
                #expect(held.status == 0 && held.fault?.hasPrefix("f1 hang at response") == true)
                #expect(held.explanation?.contains("never answered") == true)
                #expect(sends.first { $0.payload?.contains("answered") == true }?.status == 200)
                // Displayed after the held push was read: had it been processed, it would be displayed too.
                let control = harness.control
                #expect(try await control.deliveries("apnsId=\(Self.apnsID("answered"))").count == 1)
                #expect(try await control.deliveries("token=\(token)&limit=100", count: 2).count == 2, "first and answered only")
                let heldDeliveries = try await control.get("/v1/deliveries?apnsId=\(Self.apnsID("held"))").json as? [Any]
                #expect(heldDeliveries?.isEmpty == true, "the held push was not processed")
                await raw.close()
            }
        }
    }

    @Test("hang at window: open connections get SETTINGS_INITIAL_WINDOW_SIZE 0, a body sent anyway is refused, and new connections are served")
    func window() async throws {
        try await withGateway { harness in
            let jwt = harness.jwt()
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!, tls: (harness.pki.caFile, ["h2"]))
            try await raw.send(Self.preface + Self.settingsAck + Self.push(stream: 1, token: TestWorld.devToken, alert: "before", jwt: jwt))
            _ = await raw.bytes(until: Self.answered(1))
            try await harness.gateway.inject([Self.hang(.window)])  // acted on the open connection when it returns
            let zeroWindow: @Sendable ([UInt8]) -> Bool = { bytes in
                http2Frames(in: bytes).contains { $0.type == 0x4 && $0.payload == [0x00, 0x04, 0, 0, 0, 0] }
            }
            _ = await raw.bytes(until: zeroWindow)
            // Once acknowledged (with the SETTINGS that raised the streams after the first push), the window is zero: a
            // body is a flow-control error on its stream (RFC 9113 §6.9.1).
            try await raw.send(Self.settingsAck + Self.settingsAck + Self.push(stream: 3, token: TestWorld.devToken, alert: "after", jwt: jwt))
            let bytes = await raw.bytes { bytes in http2Frames(in: bytes).contains { $0.type == 0x3 && $0.stream == 3 } }
            let reset = try #require(http2Frames(in: bytes).first { $0.type == 0x3 && $0.stream == 3 })
            #expect(reset.payload == [0, 0, 0, 0x3], "RST_STREAM FLOW_CONTROL_ERROR")
            try await BadInputTests.stillServes(harness)
            #expect(try await harness.sends().contains { $0.method == "HANG" && $0.explanation?.contains("SETTINGS_INITIAL_WINDOW_SIZE 0") == true })
            await raw.close()
        }
    }

    @Test("hang at silence after 1 push: the second push is not processed, nothing more is written or closed, and other connections are served")
    func silence() async throws {
        try await withGateway { harness in
            try await harness.gateway.inject([Self.hang(.silence, after: 1)])
            let jwt = harness.jwt()
            let raw = try await RawConnection.connect(port: harness.endpoints.providerPorts[.development]!, tls: (harness.pki.caFile, ["h2"]), closeWithoutWaiting: true)
            try await raw.send(Self.preface + Self.settingsAck + Self.push(stream: 1, token: TestWorld.devToken, alert: "first", jwt: jwt))
            let before = await raw.bytes(until: Self.answered(1))
            try await raw.send(Self.push(stream: 3, token: TestWorld.devToken, alert: "second", jwt: jwt) + Self.ping(2))
            // Served on another connection only once the silent one has recorded its second push.
            let control = harness.control
            let unprocessed: @Sendable (SendRecord) -> Bool = { $0.method == "POST" && $0.status == 0 }
            try await control.waitUntil("the second push is recorded") { (try? await harness.sends())?.contains(where: unprocessed) == true }
            try await BadInputTests.stillServes(harness)
            #expect(raw.channel.isActive, "the silent connection is not closed")
            await raw.close()
            let after = await raw.bytesUntilClosed()
            #expect(http2Frames(in: after).count == http2Frames(in: before).count, "nothing written after the silence: no answer, no PING ACK")
            let sends = try await harness.sends()
            let second = try #require(sends.first(where: unprocessed))
            #expect(second.explanation?.contains("went silent at stream 3") == true)
            #expect(sends.contains { $0.method == "HANG" && $0.explanation?.contains("went silent at stream 3") == true })
        }
    }
}
