@testable import APNSimGateway
import APNSimProvider
import APNSimRuntime
import APNSimStore
import APNSimTestSupport
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import NIOTLS
import Testing

/// The stream limit the gateway advertises, kept by the gateway: a client that opens more streams than it was allowed
/// has the extra one refused (RST_STREAM REFUSED_STREAM) and its request recorded, and the connection goes on. The
/// client here writes HTTP/2 frames by hand, as a client that ignores SETTINGS would; SwiftNIO's own client waits.
@Suite("Stream limit")
struct StreamLimitTests {
    /// A client writing raw frames to a gateway connection built as `ProtocolSelectionHandler` builds it.
    struct RawClient {
        let server: ProviderConnectionHandlerTests.Connection
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator())

        init() throws {
            server = try ProviderConnectionHandlerTests.Connection(beforeHTTP2: true)
            server.channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "h2"))
        }

        func send(_ bytes: [UInt8]) throws {
            try server.channel.writeInbound(ByteBuffer(bytes: bytes))
            server.loop.run()
        }

        static func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8] = []) -> [UInt8] {
            let length = UInt32(payload.count)
            return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                    UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
        }

        /// HEADERS of a push to the test world's token, ending the stream when `endStream`.
        mutating func headers(stream: UInt32, jwt: String?, endStream: Bool) throws -> [UInt8] {
            var block = ByteBuffer()
            try encoder.encode(headers: ProviderConnectionHandlerTests.Connection.pushHeaders(jwt: jwt), to: &block)
            return Self.frame(type: 0x1, flags: 0x4 | (endStream ? 0x1 : 0), stream: stream, Array(block.readableBytesView))
        }

        /// The frames the gateway wrote since the last call, as (type, stream, payload).
        func frames() throws -> [(type: UInt8, stream: UInt32, payload: [UInt8])] {
            var bytes: [UInt8] = []
            while let buffer = try server.channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytesView }
            var frames: [(type: UInt8, stream: UInt32, payload: [UInt8])] = []
            var at = 0
            while at + 9 <= bytes.count {
                let length = Int(bytes[at]) << 16 | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
                let stream = UInt32(bytes[at + 5] & 0x7f) << 24 | UInt32(bytes[at + 6]) << 16 | UInt32(bytes[at + 7]) << 8 | UInt32(bytes[at + 8])
                frames.append((bytes[at + 3], stream, Array(bytes[(at + 9)..<(at + 9 + length)])))
                at += 9 + length
            }
            return frames
        }
    }

    @Test("Over the limit a token connection starts with, the extra stream is refused and recorded; the first is answered; the limit on the wire is 1")
    func refusedOverLimit() async throws {
        var client = try RawClient()
        try client.send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + RawClient.frame(type: 0x4, flags: 0, stream: 0))
        let opening = try client.frames()
        let settings = try #require(opening.first { $0.type == 0x4 && !$0.payload.isEmpty })
        let limit = try #require(Self.streamLimit(in: settings.payload))
        #expect(limit == 1, "the wire says the advertised limit, not NIOHTTP2's placeholder")
        try client.send(RawClient.frame(type: 0x4, flags: 0x1, stream: 0))  // the client acknowledges: 1 binds
        // No provider token: the limit stays 1 (a valid one raises it at once, before a second stream could come).
        try client.send(try client.headers(stream: 1, jwt: nil, endStream: false))
        try client.send(try client.headers(stream: 3, jwt: nil, endStream: true))
        let refused = try client.frames().filter { $0.type == 0x3 }
        #expect(refused.map(\.stream) == [3])
        #expect(refused.first?.payload == [0, 0, 0, 7], "REFUSED_STREAM")
        try client.send(RawClient.frame(type: 0x0, flags: 0x1, stream: 1, Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
        #expect(try client.frames().contains { $0.type == 0x1 && $0.stream == 1 }, "stream 1 answered")
        #expect(client.server.isOpen, "a stream error, not a connection error")
        let sends = try await client.server.sends()
        #expect(sends.map(\.status).sorted() == [0, 403], "stream 1: MissingProviderToken")
        let notProcessed = try #require(sends.first { $0.status == 0 })
        #expect(notProcessed.token == TestWorld.devToken.lowercased())
        #expect(notProcessed.explanation?.contains("REFUSED_STREAM") == true)
        #expect(notProcessed.explanation?.contains("until a request carries a valid provider token") == true, "\(notProcessed.explanation ?? "")")
    }

    /// SETTINGS_MAX_CONCURRENT_STREAMS in a SETTINGS frame's payload: six bytes a setting, identifier 3.
    static func streamLimit(in payload: [UInt8]) -> Int? {
        for at in stride(from: 0, to: payload.count - 5, by: 6) where payload[at] == 0 && payload[at + 1] == 3 {
            var value = 0
            for byte in payload[(at + 2)..<(at + 6)] { value = value << 8 | Int(byte) }
            return value
        }
        return nil
    }

    @Test("No limit binds until the client acknowledges one; a raised limit counts at once, a lowered one once acknowledged")
    func allowance() {
        var allowance = StreamAllowance()
        allowance.settingsSent(maxConcurrentStreams: 1)
        #expect(allowance.take(1) == nil)
        #expect(allowance.take(3) == nil, "nothing acknowledged: no limit yet")
        allowance.settingsAcknowledged()
        #expect(allowance.take(5) == 1)
        allowance.closed(1)
        allowance.closed(3)
        #expect(allowance.take(5) == nil)
        allowance.settingsSent(maxConcurrentStreams: 3)
        #expect(allowance.take(7) == nil, "raised: counts before its ACK")
        #expect(allowance.take(9) == nil)
        #expect(allowance.take(11) == 3)
        allowance.settingsAcknowledged()
        allowance.settingsSent(maxConcurrentStreams: nil)  // SETTINGS_INITIAL_WINDOW_SIZE alone
        allowance.settingsSent(maxConcurrentStreams: 1)
        #expect(allowance.take(11) == 3, "lowered: not before its ACK")
        allowance.settingsAcknowledged()
        allowance.settingsAcknowledged()
        #expect(allowance.limit == 1)
    }
}
