import APNSimRules
import APNSimStore
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Sits behind TLS until the handshake is done, then turns the connection into an HTTP/2 provider connection.
///
/// ALPN `h2` goes straight to HTTP/2. A client that negotiated nothing is sniffed: the HTTP/2 connection
/// preface still gets HTTP/2 (prior knowledge); anything else, such as an HTTP/1.1 request, gets a plain
/// `505 HTTP Version Not Supported` that says why, and the connection is closed. Apple's behaviour here is
/// unknown (Apple does not say); an answer beats a silent close.
final class ProtocolSelectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let connection: ProviderConnection
    private var sniffed: ByteBuffer?
    private var handshakeTimer: Scheduled<Void>?
    /// What the client sent before TLS read it: whether anything, and a plaintext alert; removed once TLS is done.
    private var sniffer: TLSAlertSniffer?

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    init(connection: ProviderConnection, sniffer: TLSAlertSniffer? = nil) {
        self.connection = connection
        self.sniffer = sniffer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((context: context, connection: connection), eventLoop: context.eventLoop)
        let logger = connection.services.logger, timeout = connection.services.policy.handshakeTimeout
        let peer = connection.remoteAddress, metrics = connection.services.metrics
        handshakeTimer = context.eventLoop.scheduleTask(in: .init(timeout)) {
            let connection = loopBound.value.connection
            metrics.connectionRefused("handshake_timeout")
            let stage = connection.tlsDone ? "the TLS handshake was done but no HTTP/2 preface came" : "the TLS handshake was not done"
            connection.recordConnection(.handshakeTimedOut, explanation: "\(stage) within \(timeout) (--handshake-timeout); the gateway closed the connection")
            logger.notice("provider connection closed: TLS handshake and HTTP/2 preface not done in time",
                          metadata: ["peer": "\(peer)", "timeout": "\(timeout)"])
            loopBound.value.context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        handshakeTimer?.cancel()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted(let negotiated) = event {
            connection.tlsDone = true
            if let sniffer {
                self.sniffer = nil
                context.pipeline.syncOperations.removeHandler(sniffer, promise: nil)
            }
            if negotiated == "h2" {
                startHTTP2(context: context, buffered: nil)
            } else {
                sniffed = context.channel.allocator.buffer(capacity: Self.preface.count)
            }
        }
        // The idle timeout is HTTP/2's (GOAWAY IdleTimeout, ProviderConnectionHandler); until HTTP/2 begins the
        // handshake timeout governs. Closing here on an idle event as well closed, without a GOAWAY, a connection whose
        // client was slow to finish its handshake (a busy machine, a 1 s idle timeout in a test).
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var buffered = sniffed else { return }
        var incoming = unwrapInboundIn(data)
        buffered.writeBuffer(&incoming)
        sniffed = buffered
        let seen = buffered.readableBytesView.prefix(Self.preface.count)
        guard seen.elementsEqual(Self.preface.prefix(seen.count)) else {
            answerNotHTTP2(context: context)
            return
        }
        if seen.count == Self.preface.count {
            startHTTP2(context: context, buffered: buffered)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Garbage instead of a TLS hello, a certificate the client refused, a reset mid-handshake: nothing to answer.
        connection.services.metrics.connectionRefused("tls_error")
        if !connection.tlsDone, sniffer?.clientSpoke ?? true, let failure = TLSHandshakeFailure(error, alert: sniffer?.alert) {
            connection.recordConnection(.tlsHandshakeFailed, tlsAlert: failure.alert, explanation: failure.explanation)
        }
        connection.services.logger.notice("provider connection closed before HTTP/2 began",
                                          metadata: ["peer": "\(connection.remoteAddress)", "error": "\(error)"])
        context.close(promise: nil)
    }

    private func startHTTP2(context: ChannelHandlerContext, buffered: ByteBuffer?) {
        handshakeTimer?.cancel()
        sniffed = nil
        let connection = self.connection
        var connectionConfiguration = NIOHTTP2Handler.ConnectionConfiguration()
        connectionConfiguration.initialSettings = connection.openingSettings()
        // Content-length checks stay on; header validation stays on (RFC 9113 §8.2). No stream multiplexer:
        // ProviderConnectionHandler answers streams from their frames.
        do {
            let sync = context.pipeline.syncOperations
            let watch = ProtocolErrorWatch(connection: connection)
            try sync.addHandler(ProtocolErrorWatch.Rewriter(watch: watch), position: .last)
            try sync.addHandler(NIOHTTP2Handler(mode: .server, frameDelegate: watch, connectionConfiguration: connectionConfiguration),
                                position: .last)
            try sync.addHandler(ProviderConnectionHandler(connection: connection, watch: watch), position: .last)
        } catch {
            context.close(promise: nil)
            return
        }
        connection.channel = context.channel
        connection.services.connections.add(context.channel)
        if let buffered { context.fireChannelRead(wrapInboundOut(buffered)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func answerNotHTTP2(context: ChannelHandlerContext) {
        sniffed = nil
        connection.services.metrics.connectionRefused("not_http2")
        connection.recordConnection(.notHTTP2, reason: "HTTP2Required", explanation:
            "the client sent something other than HTTP/2 (such as an HTTP/1.1 request) and was answered 505: negotiate ALPN h2")
        let body = #"{"reason":"HTTP2Required","explanation":"apnsim, like APNs, speaks HTTP/2 only: negotiate ALPN h2 (curl --http2, AsyncHTTPClient httpVersion .automatic)"}"#
        let response = "HTTP/1.1 505 HTTP Version Not Supported\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)"
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}

extension TimeAmount {
    /// `duration` in NIO's nanoseconds, saturating at about 292 years rather than trapping on a huge setting.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else {
            self = .nanoseconds(seconds < 0 ? .min : .max)
            return
        }
        self = .nanoseconds(nanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue)
    }
}
