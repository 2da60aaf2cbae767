import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A byte-level connection to the gateway, optionally over TLS, for sending what no well-behaved client would.
/// It collects every byte the gateway sends until the gateway closes the connection.
struct RawConnection: Sendable {
    let channel: any Channel
    private let received: ReceivedBytes

    static func connect(port: Int, tls: (caFile: String, alpn: [String])? = nil) async throws -> RawConnection {
        let received = ReceivedBytes()
        var sslContext: NIOSSLContext?
        if let tls {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(tls.caFile)
            configuration.applicationProtocols = tls.alpn
            sslContext = try NIOSSLContext(configuration: configuration)
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: "localhost"))
                    }
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawConnection(channel: channel, received: received)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Everything received, once the gateway has closed the connection.
    func bytesUntilClosed() async -> [UInt8] {
        try? await channel.closeFuture.get()
        return received.bytes
    }

    func close() async {
        try? await channel.close()
    }

    private final class ReceivedBytes: Sendable {
        private let storage = Mutex<[UInt8]>([])
        func append(_ buffer: ByteBuffer) { storage.withLock { $0 += buffer.readableBytesView } }
        var bytes: [UInt8] { storage.withLock { $0 } }
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let received: ReceivedBytes
        init(received: ReceivedBytes) { self.received = received }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { received.append(unwrapInboundIn(data)) }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// HTTP/2 frames in a byte stream: (type, flags, stream, payload).
func http2Frames(in bytes: [UInt8]) -> [(type: UInt8, stream: UInt32, payload: [UInt8])] {
    var frames: [(type: UInt8, stream: UInt32, payload: [UInt8])] = []
    var index = 0
    while index + 9 <= bytes.count {
        let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
        let stream = UInt32(bytes[index + 5] & 0x7f) << 24 | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 8 | UInt32(bytes[index + 8])
        guard index + 9 + length <= bytes.count else { break }
        frames.append((bytes[index + 3], stream, Array(bytes[(index + 9)..<(index + 9 + length)])))
        index += 9 + length
    }
    return frames
}
