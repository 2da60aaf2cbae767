@testable import APNSimGateway
import NIOCore
import NIOEmbedded
import Testing

/// What the gateway reads of a failed handshake in front of TLS: the alert a TLS 1.3 client sends in the clear.
@Suite("TLS alert sniffer")
struct TLSAlertSnifferTests {
    /// A handshake record (a ClientHello's worth of bytes), then the alert OpenSSL's client sends when it does not
    /// trust the server: level 2 (fatal), description 48 (`unknown_ca`).
    static let bytes: [UInt8] = [22, 3, 1, 0, 5, 1, 0, 0, 1, 0] + [21, 3, 3, 0, 2, 2, 48]

    @Test("The alert is read whichever way the bytes are split across reads", arguments: 0...17)
    func split(at cut: Int) throws {
        let sniffer = TLSAlertSniffer()
        let channel = EmbeddedChannel(handler: sniffer)
        for part in [Self.bytes[..<cut], Self.bytes[cut...]] where !part.isEmpty {
            try channel.writeInbound(ByteBuffer(bytes: part))
        }
        #expect(sniffer.alert == "unknown_ca")
        #expect(sniffer.clientSpoke)
        #expect(try channel.readInbound(as: ByteBuffer.self) != nil, "the bytes go on to TLS")
    }

    @Test("Records that are not alerts name none; nothing sent is not a client that spoke")
    func noAlert() throws {
        let sniffer = TLSAlertSniffer()
        let channel = EmbeddedChannel(handler: sniffer)
        #expect(!sniffer.clientSpoke)
        try channel.writeInbound(ByteBuffer(bytes: Self.bytes.prefix(10) + [23, 3, 3, 0, 2, 9, 9]))
        #expect(sniffer.alert == nil)
        #expect(sniffer.clientSpoke)
    }

    @Test("BoringSSL's own alert names are read from its error text, and an unclean close is no refusal")
    func errorText() {
        struct Failed: Error, CustomStringConvertible {
            var description: String
        }
        let failure = TLSHandshakeFailure(Failed(description: "handshakeFailed(sslError([error:10000418:SSL routines:OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA]))"))
        #expect(failure?.alert == "unknown_ca")
        #expect(TLSHandshakeFailure(Failed(description: "handshakeFailed(sslError([SSL routines:OPENSSL_internal:HTTP_REQUEST]))"))?
            .explanation.contains("plain HTTP") == true)
        #expect(TLSHandshakeFailure(Failed(description: "connection reset by peer")) == nil)
    }
}
