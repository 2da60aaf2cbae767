import NIOCore

/// A connection a `hang` at `silence` has taken (docs/faults.md): first in its pipeline, it discards every byte read
/// and every byte written, and closes nothing, so the client sees a peer that has gone quiet without a FIN. The
/// connection ends when the client closes it, or when the gateway shuts down.
final class SilentConnection: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelReadComplete(context: ChannelHandlerContext) {}

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Taken as written: a failed write would be an error, and the handlers behind would close the connection.
        promise?.succeed(())
    }

    func flush(context: ChannelHandlerContext) {}
}

/// A connection a `hang` at `handshake` has taken: the only handler of its pipeline, it reads the client's TLS
/// ClientHello and everything after it and answers nothing, so the handshake never completes. It closes only when
/// the gateway shuts down (or when the client gives up and closes).
final class HeldHandshake: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }
}

@available(*, unavailable)
extension SilentConnection: Sendable {}

@available(*, unavailable)
extension HeldHandshake: Sendable {}
