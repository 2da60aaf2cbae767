import NIOCore

/// Reads the TLS records a client sends during the handshake, in front of TLS, for two things BoringSSL cannot say:
/// whether the client sent anything at all (a TCP health check connects and closes, which is no refusal), and the
/// alert a TLS 1.3 client sends in the clear when it refuses the gateway's certificate. OpenSSL's client (curl,
/// Python's `ssl`, aioapns) checks the certificate before it has keys of its own, so its `unknown_ca` goes out as a
/// plaintext record that the server, expecting an encrypted one, reports only as a record it cannot decrypt.
/// ``ProtocolSelectionHandler`` removes it once the handshake is done.
final class TLSAlertSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Whether the client sent any bytes.
    private(set) var clientSpoke = false
    /// The description of the last plaintext alert the client sent (RFC 8446 §6), named.
    private(set) var alert: String?
    /// The record header being read (5 bytes), and how much of the current record's body is still to come.
    private var header: [UInt8] = []
    private var bodyLeft = 0
    /// An alert record's two bytes, as they arrive.
    private var alertBody: [UInt8]?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        clientSpoke = clientSpoke || bytes.readableBytes > 0
        read(bytes.readableBytesView)
        context.fireChannelRead(data)
    }

    private func read(_ bytes: ByteBufferView) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bodyLeft > 0 {
                let take = min(bodyLeft, bytes.endIndex - index)
                if alertBody != nil { alertBody?.append(contentsOf: bytes[index..<index + take]) }
                index += take
                bodyLeft -= take
                if bodyLeft == 0, let body = alertBody, body.count == 2 { alert = Self.name(body[1]) }
                if bodyLeft == 0 { alertBody = nil }
                continue
            }
            header.append(bytes[index])
            index += 1
            guard header.count == 5 else { continue }
            bodyLeft = Int(header[3]) << 8 | Int(header[4])
            alertBody = header[0] == 21 && bodyLeft == 2 ? [] : nil  // content type 21: alert
            header.removeAll(keepingCapacity: true)
        }
    }

    /// RFC 8446 §6's names of alert descriptions.
    static func name(_ description: UInt8) -> String {
        let names: [UInt8: String] = [
            0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow", 40: "handshake_failure",
            42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked", 45: "certificate_expired",
            46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca", 49: "access_denied", 50: "decode_error",
            51: "decrypt_error", 70: "protocol_version", 71: "insufficient_security", 80: "internal_error",
            86: "inappropriate_fallback", 90: "user_canceled", 109: "missing_extension", 110: "unsupported_extension",
            112: "unrecognized_name", 113: "bad_certificate_status_response", 115: "unknown_psk_identity",
            116: "certificate_required", 120: "no_application_protocol",
        ]
        return names[description] ?? "alert \(description)"
    }
}

@available(*, unavailable)
extension TLSAlertSniffer: Sendable {}
