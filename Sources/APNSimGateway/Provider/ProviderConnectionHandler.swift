import APNSimCore
import NIOCore
import NIOExtras
import NIOHTTP2

/// Connection-level policy on the parent channel, behind `NIOHTTP2Handler`: GOAWAY for a certificate of the
/// wrong environment, for idleness and for shutdown (reference §1.5–1.6). PING and SETTINGS ACKs are
/// answered by NIOHTTP2 itself.
final class ProviderConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let connection: ProviderConnection
    private var closing = false

    init(connection: ProviderConnection) {
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if case .certificate(let certificate) = connection.auth, !certificate.environments.contains(connection.environment) {
            // Observed from APNs: GOAWAY, last stream 0, NO_ERROR, {"reason":"BadCertificateEnvironment"}, then close.
            goAway(context: context, reason: .badCertificateEnvironment)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let idle as IdleStateHandler.IdleStateEvent where idle == .read:
            goAway(context: context, reason: .idleTimeout)
        case is ChannelShouldQuiesceEvent:
            goAway(context: context, reason: .shutdown)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // NIOHTTP2 has already sent GOAWAY for protocol errors; stream errors only reset their stream.
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream { return }
        context.close(promise: nil)
    }

    private func goAway(context: ChannelHandlerContext, reason: RejectionReason) {
        guard !closing else { return }
        closing = true
        let frame = HTTP2Frame.goAway(lastStreamID: connection.lastStreamID, reason: reason, allocator: context.channel.allocator)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}
