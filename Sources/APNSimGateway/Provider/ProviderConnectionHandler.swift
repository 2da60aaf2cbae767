import APNSimCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP2

/// Connection-level policy on the parent channel, behind `NIOHTTP2Handler`: GOAWAY for a certificate of the wrong
/// environment, for idleness and for shutdown (Apple, "Establishing a connection to APNs"), and what a protocol error
/// ends. PING and SETTINGS ACKs are answered by NIOHTTP2 itself.
///
/// - A stream error (NIOHTTP2 reset the stream) ends that stream only; every other push on the connection
///   goes on (RFC 9113 §5.4.2).
/// - A connection error (NIOHTTP2 sent GOAWAY, with the last stream apnsim acted on, ``ProtocolErrorWatch``)
///   closes the connection at once (RFC 9113 §5.4.1).
/// - Shutdown sends GOAWAY `{"reason":"Shutdown"}` and lets the requests already in flight be answered before
///   closing, for at most ``GatewayConfiguration/ConnectionPolicy/shutdownGrace``.
final class ProviderConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// Sent down the pipeline after a graceful GOAWAY: answer what is in flight up to `lastStreamID`, then close.
    struct DrainThenClose {
        var lastStreamID: HTTP2StreamID
    }

    private let connection: ProviderConnection
    private let watch: ProtocolErrorWatch
    private var closing = false

    init(connection: ProviderConnection, watch: ProtocolErrorWatch) {
        self.connection = connection
        self.watch = watch
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if case .certificate(let certificate) = connection.auth, !certificate.environments.contains(connection.environment) {
            // Observed from APNs: GOAWAY, last stream 0, NO_ERROR, {"reason":"BadCertificateEnvironment"}, then close.
            goAway(context: context, reason: .badCertificateEnvironment, drain: false)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let idle as IdleStateHandler.IdleStateEvent where idle == .read:
            goAway(context: context, reason: .idleTimeout, drain: false)
        case is ChannelShouldQuiesceEvent:
            goAway(context: context, reason: .shutdown, drain: true)
        case let injected as InjectedFault:
            act(on: injected.fault, context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let code = watch.connectionError {
            // NIOHTTP2 has written GOAWAY with this code; nothing more can be read from this connection.
            guard !closing else { return }
            closing = true
            connection.services.logger.debug("provider connection error; closing",
                                             metadata: ["peer": "\(connection.remoteAddress)", "code": "\(code)", "error": "\(error)"])
            context.flush()
            context.close(promise: nil)
            return
        }
        if watch.takeStreamError() || error is NIOHTTP2Errors.StreamError || error is NIOHTTP2Errors.StreamClosed
            || error is NIOHTTP2Errors.NoSuchStream {
            // One stream was reset (by NIOHTTP2, or by the client while its answer was being written): the rest go on.
            connection.services.logger.debug("provider stream error; the connection goes on",
                                             metadata: ["peer": "\(connection.remoteAddress)", "error": "\(error)"])
            return
        }
        // TLS and I/O errors: the connection is unusable.
        connection.services.logger.notice("provider connection closed on an error",
                                          metadata: ["peer": "\(connection.remoteAddress)", "error": "\(error)"])
        context.close(promise: nil)
    }

    /// A fault acting on the whole connection at once: GOAWAY (then the requests in flight are answered and the
    /// connection closes), a drop without a word, or new SETTINGS.
    private func act(on fault: Fault, context: ChannelHandlerContext) {
        switch fault.resolvedKind {
        case .goAway:
            guard !closing else { return }
            let last = fault.lastStreamId.map { HTTP2StreamID($0) } ?? connection.lastStreamID
            connection.recordFault(fault, event: "GOAWAY",
                                   explanation: "GOAWAY {\"reason\":\"\(fault.reason ?? "Shutdown")\"} with last stream \(Int(last))")
            goAway(context: context, reason: RejectionReason(fault.reason ?? "Shutdown", status: 0), drain: true, lastStreamID: last,
                   errorCode: HTTP2ErrorCode(networkCode: fault.errorCode ?? 0))
        case .drop:
            guard !closing else { return }
            closing = true
            connection.recordFault(fault, event: "DROP", explanation: "the connection was closed without GOAWAY")
            context.close(promise: nil)
        case .settings:
            guard let streams = fault.maxConcurrentStreams else { return }
            connection.recordFault(fault, event: "SETTINGS", explanation: "SETTINGS MAX_CONCURRENT_STREAMS \(streams)")
            context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([
                HTTP2Setting(parameter: .maxConcurrentStreams, value: streams),
            ])))), promise: nil)
        default:
            break
        }
    }

    private func goAway(context: ChannelHandlerContext, reason: RejectionReason, drain: Bool, lastStreamID: HTTP2StreamID? = nil,
                        errorCode: HTTP2ErrorCode = .noError) {
        guard !closing else { return }
        closing = true
        let frame = HTTP2Frame.goAway(lastStreamID: lastStreamID ?? connection.lastStreamID, reason: reason,
                                      allocator: context.channel.allocator, errorCode: errorCode)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        guard drain else {
            context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
                loopBound.value.close(promise: nil)
            }
            return
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        context.eventLoop.scheduleTask(in: TimeAmount(connection.services.policy.shutdownGrace)) {
            loopBound.value.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(DrainThenClose(lastStreamID: lastStreamID ?? connection.lastStreamID))
    }
}

@available(*, unavailable)
extension ProviderConnectionHandler: Sendable {}
