import APNSimTestSupport
import NIOCore
import NIOHPACK

/// What the gateway answered on a raw connection, frame by frame: the decoded HEADERS of each stream, the
/// RST_STREAM codes, and any GOAWAY. HEADERS are decoded in order with one HPACK decoder, as a client would.
package struct RawResponses {
    package var headers: [UInt32: [(name: String, value: String)]] = [:]
    package var resets: [UInt32: UInt32] = [:]
    package var goAway: (lastStreamID: UInt32, errorCode: UInt32, debug: String)?

    package init(_ bytes: [UInt8]) {
        var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
        for frame in http2Frames(in: bytes) {
            switch frame.type {
            case 0x1:
                var block = ByteBuffer(bytes: frame.payload)
                if let decoded = try? decoder.decodeHeaders(from: &block) {
                    headers[frame.stream] = decoded.map { ($0.name, $0.value) }
                }
            case 0x3 where frame.payload.count == 4:
                resets[frame.stream] = frame.payload.reduce(0) { $0 << 8 | UInt32($1) }
            case 0x7 where frame.payload.count >= 8:
                goAway = (frame.payload[0..<4].reduce(0) { $0 << 8 | UInt32($1) } & 0x7fff_ffff,
                          frame.payload[4..<8].reduce(0) { $0 << 8 | UInt32($1) },
                          String(decoding: frame.payload[8...], as: UTF8.self))
            default:
                break
            }
        }
    }

    /// The `:status` of each stream that has one.
    package var statuses: [UInt32: String] {
        headers.compactMapValues { fields in fields.first { $0.name == ":status" }?.value }
    }
}

/// The connection preface and an empty SETTINGS frame, then the ACK of the server's SETTINGS.
package let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + http2Frame(type: 0x4, stream: 0, payload: [])
    + http2Frame(type: 0x4, flags: 0x1, stream: 0, payload: [])

/// A push request as two frames, HEADERS (END_HEADERS) then DATA (END_STREAM), from literal header fields.
package func rawPush(stream: UInt32, fields: [(name: String, value: String)], body: String = GatewayHarness.alert) -> [UInt8] {
    http2Frame(type: 0x1, flags: 0x4, stream: stream, payload: hpackLiterals(fields))
        + http2Frame(type: 0x0, flags: 0x1, stream: stream, payload: Array(body.utf8))
}

package extension GatewayHarness {
    /// The header fields of a valid token-auth push to `token`, pseudo-headers first.
    package func rawFields(token: String = TestWorld.devToken, jwt: String? = nil) -> [(name: String, value: String)] {
        [(":method", "POST"), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", "localhost"),
         ("authorization", "bearer \(jwt ?? self.jwt())"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert")]
    }
}
