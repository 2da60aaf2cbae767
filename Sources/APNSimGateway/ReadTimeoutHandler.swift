import NIOCore

/// Tells the pipeline when nothing has been read for `timeout` (`IdleStateHandler.IdleStateEvent.read`, the event NIO's
/// `IdleStateHandler` sends), and again each `timeout` that nothing more is read; the handler behind it decides what
/// that means (a provider connection's idle GOAWAY, a device link's heartbeat timeout).
///
/// NIO's `IdleStateHandler` measures with the system's clock (`NIODeadline.now()`), which an `EmbeddedEventLoop`'s
/// time does not move, so a test of a timeout had to wait for it on a real socket. This one measures with its event
/// loop's clock (`EventLoop.now`: the system's on a real loop, the one a test moves by hand on an embedded loop), and
/// keeps one timer a channel, moved on only when it fires: a read costs a clock read, as in `IdleStateHandler`.
final class ReadTimeoutHandler: ChannelInboundHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private let timeout: TimeAmount
    private var lastRead: NIODeadline?
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastRead = context.eventLoop.now
        context.fireChannelRead(data)
    }

    private func start(context: ChannelHandlerContext) {
        guard timer == nil else { return }
        lastRead = context.eventLoop.now
        arm(at: context.eventLoop.now + timeout, context: context)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        lastRead = nil
    }

    private func arm(at deadline: NIODeadline, context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            fired(context: context)
        }
    }

    /// Nothing read since `timeout` ago: the event, and the timer again `timeout` from now. Otherwise the timer again
    /// `timeout` after the last read.
    private func fired(context: ChannelHandlerContext) {
        guard let lastRead, context.channel.isActive else { return }
        let now = context.eventLoop.now
        if now - lastRead >= timeout {
            arm(at: now + timeout, context: context)
            context.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        } else {
            arm(at: lastRead + timeout, context: context)
        }
    }
}
