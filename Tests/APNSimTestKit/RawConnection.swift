import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A byte-level connection to the gateway, optionally over TLS, for sending what no well-behaved client would.
/// It collects every byte the gateway sends until the gateway closes the connection.
package struct RawConnection: Sendable {
    package let channel: any Channel
    private let received: ReceivedBytes

    /// Connects; `first` is written as soon as the connection is up, from the event loop (over TLS, right after the
    /// handshake), so a gateway's timer that runs from the handshake never races this test's scheduling.
    /// - Parameter receiveBuffer: the socket's receive buffer in bytes (`SO_RCVBUF`), small for a peer that stops
    ///   reading and should be noticed soon.
    /// - Parameter closeWithoutWaiting: close without waiting for the gateway's TLS close_notify (NIOSSL waits 5 s),
    ///   for a connection the gateway has stopped answering.
    package static func connect(port: Int, tls: (caFile: String, alpn: [String])? = nil,
                                clientCertificate: (certificate: String, key: String)? = nil, sending first: [UInt8] = [],
                                receiveBuffer: Int? = nil, closeWithoutWaiting: Bool = false) async throws -> RawConnection {
        let received = ReceivedBytes()
        let sslContext: NIOSSLContext?
        if let tls {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(tls.caFile)
            configuration.applicationProtocols = tls.alpn
            if closeWithoutWaiting { configuration.shutdownTimeout = .zero }
            if let clientCertificate {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCertificate.certificate).map { .certificate($0) }
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientCertificate.key, format: .pem))
            }
            sslContext = try NIOSSLContext(configuration: configuration)
        } else {
            sslContext = nil
        }
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let receiveBuffer { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer)) }
        let channel = try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: "localhost"))
                    }
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received))
                    if !first.isEmpty { try channel.pipeline.syncOperations.addHandler(FirstBytes(bytes: first)) }
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawConnection(channel: channel, received: received)
    }

    /// Stops reading what the gateway sends: it stays in the socket, and then in the gateway.
    package func stopReading() async throws {
        try await channel.setOption(ChannelOptions.autoRead, value: false)
    }

    package func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Everything received, once the gateway has closed the connection.
    package func bytesUntilClosed() async -> [UInt8] {
        try? await channel.closeFuture.get()
        return received.bytes
    }

    /// Everything received so far, once `done` holds for it or the gateway has closed the connection.
    package func bytes(until done: @escaping @Sendable ([UInt8]) -> Bool) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            received.notify(when: done, continuation)
            channel.closeFuture.whenComplete { _ in received.closed() }
        }
    }

    package func close() async {
        try? await channel.close()
    }

    private final class ReceivedBytes: Sendable {
        private struct State {
            package var bytes: [UInt8] = []
            package var waiter: (done: @Sendable ([UInt8]) -> Bool, continuation: CheckedContinuation<[UInt8], Never>)?
        }
        private let storage = Mutex(State())

        package var bytes: [UInt8] { storage.withLock { $0.bytes } }

        package func append(_ buffer: ByteBuffer) {
            storage.withLock { state in
                state.bytes += buffer.readableBytesView
                if let waiter = state.waiter, waiter.done(state.bytes) {
                    state.waiter = nil
                    waiter.continuation.resume(returning: state.bytes)
                }
            }
        }

        package func notify(when done: @escaping @Sendable ([UInt8]) -> Bool, _ continuation: CheckedContinuation<[UInt8], Never>) {
            storage.withLock { state in
                if done(state.bytes) { continuation.resume(returning: state.bytes) } else { state.waiter = (done, continuation) }
            }
        }

        package func closed() {
            storage.withLock { state in
                state.waiter?.continuation.resume(returning: state.bytes)
                state.waiter = nil
            }
        }
    }

    private final class Collector: ChannelInboundHandler {
        package typealias InboundIn = ByteBuffer
        package let received: ReceivedBytes
        package init(received: ReceivedBytes) { self.received = received }
        package func channelRead(context: ChannelHandlerContext, data: NIOAny) { received.append(unwrapInboundIn(data)) }
        package func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// One HTTP/2 frame on the wire (RFC 9113 §4.1).
package func http2Frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8]) -> [UInt8] {
    let length = UInt32(payload.count)
    let header: [UInt8] = [UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8),
                           UInt8(truncatingIfNeeded: length), type, flags,
                           UInt8(truncatingIfNeeded: stream >> 24) & 0x7f, UInt8(truncatingIfNeeded: stream >> 16),
                           UInt8(truncatingIfNeeded: stream >> 8), UInt8(truncatingIfNeeded: stream)]
    return header + payload
}

/// A header block of literal fields, never indexed and never Huffman-coded (RFC 7541 §6.2.2), so a test can
/// write HEADERS frames by hand.
package func hpackLiterals(_ fields: [(name: String, value: String)]) -> [UInt8] {
    func integer(_ value: Int) -> [UInt8] {  // RFC 7541 §5.1 with a 7-bit prefix and H = 0
        guard value >= 127 else { return [UInt8(value)] }
        var bytes: [UInt8] = [127]
        var rest = value - 127
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        return bytes + [UInt8(rest)]
    }
    var block: [UInt8] = []
    for field in fields {
        block.append(0x10)
        block += integer(field.name.utf8.count)
        block += Array(field.name.utf8)
        block += integer(field.value.utf8.count)
        block += Array(field.value.utf8)
    }
    return block
}

/// HTTP/2 frames in a byte stream: (type, stream, payload).
package func http2Frames(in bytes: [UInt8]) -> [(type: UInt8, stream: UInt32, payload: [UInt8])] {
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

/// Writes its bytes once the connection is active.
private final class FirstBytes: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundOut = ByteBuffer
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    package func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
        context.fireChannelActive()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
