@testable import APNSimGateway
import APNSimProvider
import APNSimRuntime
import APNSimTestSupport
import Foundation
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import NIOTLS
import Testing

/// A provider connection as the gateway builds it once TLS is done (`ProtocolSelectionHandler`, then NIOHTTP2's
/// handler and ``ProviderConnectionHandler``), and a client that is SwiftNIO's own HTTP/2 handler, on two
/// `EmbeddedChannel`s whose bytes are carried from one to the other by hand: HTTP/2's settings and flow control without
/// a socket. The same over real TLS is in the end-to-end tests' `TokenAuthTests` and `BadInputTests`.
@Suite("HTTP/2 between a client and the gateway, without sockets")
struct HTTP2ConnectionTests {
    struct Pair {
        let server: ProviderConnectionHandlerTests.Connection
        let client: EmbeddedChannel
        /// Bytes the server read, in all.
        var serverRead = 0
        /// One provider token for the connection: a new one on every push is TooManyProviderTokenUpdates.
        let jwt: String

        init() throws {
            server = try ProviderConnectionHandlerTests.Connection(beforeHTTP2: true)
            server.channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "h2"))
            jwt = TestWorld.signer(TestWorld.teamKey).token(issuedAt: server.clock.now)
            client = EmbeddedChannel(loop: server.loop)
            try client.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client))
            try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        }

        /// Carries bytes both ways until neither side has more to say.
        mutating func exchange() throws {
            var moved = true
            while moved {
                moved = false
                while let bytes = try client.readOutbound(as: ByteBuffer.self) {
                    serverRead += bytes.readableBytes
                    try server.channel.writeInbound(bytes)
                    moved = true
                }
                while let bytes = try server.channel.readOutbound(as: ByteBuffer.self) {
                    try client.writeInbound(bytes)
                    moved = true
                }
                server.loop.run()
            }
        }

        /// Every frame the client read since the last call.
        func frames() throws -> [HTTP2Frame] {
            var frames: [HTTP2Frame] = []
            while let frame = try client.readInbound(as: HTTP2Frame.self) { frames.append(frame) }
            return frames
        }

        /// HEADERS of a push to the test world's development token, with the connection's provider token.
        func headers(stream: HTTP2StreamID) -> HTTP2Frame {
            HTTP2Frame(streamID: stream, payload: .headers(.init(headers: ProviderConnectionHandlerTests.Connection.pushHeaders(jwt: jwt))))
        }

        func push(stream: HTTP2StreamID, body: String = #"{"aps":{"alert":"hi"}}"#) {
            client.write(headers(stream: stream), promise: nil)
            client.writeAndFlush(HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true))),
                                 promise: nil)
        }
    }

    /// The `:status` of each response, by stream, in `frames`.
    static func statuses(_ frames: [HTTP2Frame]) -> [Int: String] {
        var statuses: [Int: String] = [:]
        for frame in frames {
            if case .headers(let headers) = frame.payload, let status = headers.headers.first(name: ":status") {
                statuses[Int(frame.streamID)] = status
            }
        }
        return statuses
    }

    /// The MAX_CONCURRENT_STREAMS of each SETTINGS frame (not an ACK) in `frames`, in order.
    static func streamLimits(_ frames: [HTTP2Frame]) -> [Int] {
        frames.compactMap { frame in
            guard case .settings(.settings(let settings)) = frame.payload else { return nil }
            return settings.first { $0.parameter == .maxConcurrentStreams }?.value
        }
    }

    @Test("One stream until a valid token; a second push waits in the client until SETTINGS raises MAX_CONCURRENT_STREAMS to 1000, then both are answered")
    func streamLimit() async throws {
        var pair = try Pair()
        try pair.exchange()
        #expect(Self.streamLimits(try pair.frames()) == [1])
        pair.push(stream: 1)
        pair.push(stream: 3)
        try pair.exchange()
        let frames = try pair.frames()
        #expect(Self.streamLimits(frames) == [1000])
        #expect(Self.statuses(frames) == [1: "200", 3: "200"])
        #expect(try await pair.server.sends().map(\.status) == [200, 200])
    }

    @Test("A 10 MB body stalls on the flow-control window: the gateway answers 413 having read at most one window, and the connection goes on")
    func flowControlStall() throws {
        var pair = try Pair()
        try pair.exchange()
        _ = try pair.frames()
        pair.client.write(pair.headers(stream: 1), promise: nil)
        let body = ByteBuffer(repeating: UInt8(ascii: "x"), count: 10 << 20)
        pair.client.writeAndFlush(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
        try pair.exchange()
        #expect(Self.statuses(try pair.frames()) == [1: "413"])
        #expect(pair.serverRead <= 65_535 + 16_384, "read \(pair.serverRead) bytes of a 10 MB body")
        #expect(pair.server.isOpen)
        pair.push(stream: 3)
        try pair.exchange()
        #expect(Self.statuses(try pair.frames()) == [3: "200"])
    }
}
