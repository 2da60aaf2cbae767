import APNSimRules
import APNSimStore
import Logging
import NIOCore
import NIOHTTP2

/// The one handler of a provider connection, behind `NIOHTTP2Handler`: it hands what happens (frames, idleness,
/// shutdown, injected faults, protocol errors, commits) to the connection's ``ProviderConnectionStateMachine`` and
/// carries out what that decides. Push requests are answered from their frames directly, one per HTTP/2 stream,
/// rather than through a channel per stream: the per-stream channels cost more than the whole of validation and
/// recording in `Benchmarks/provider.sh` profiles (the push work is in `ProviderConnectionHandler+Push.swift`).
///
/// - Headers are validated as soon as they arrive; the body is kept only up to the push type's limit. A body that
///   crosses the limit is answered at once (413, or the head's rejection if there was one) and the stream is reset,
///   so a 10 MB body costs at most one flow-control window of reading. Answers written while a batch of frames is
///   read go out with one flush when the batch ends.
/// - With a store file, a push is durable before its 200 goes out: the 200s of a read batch wait, unwritten, until
///   the store has committed everything recorded so far (``CommitPoint``), so a gateway killed at any moment has
///   recorded every push it accepted. Rejections go out at once: there is nothing of theirs to lose.
/// - GOAWAY for a certificate of the wrong environment, for idleness and for shutdown (Apple, "Establishing a
///   connection to APNs"); shutdown lets the requests in flight be answered before closing, for at most
///   ``GatewayConfiguration/ConnectionPolicy/shutdownGrace``. PING and SETTINGS ACKs are answered by NIOHTTP2.
/// - A stream error (NIOHTTP2 reset the stream) ends that stream only (RFC 9113 §5.4.2); a connection error
///   (NIOHTTP2 sent GOAWAY, ``ProtocolErrorWatch``) closes the connection at once (§5.4.1).
final class ProviderConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let connection: ProviderConnection
    private let watch: ProtocolErrorWatch
    /// Whether frames were written since the last flush.
    var needsFlush = false
    /// 200s of the current read batch, waiting for the store to commit (store files only).
    var awaitingCommit: [(frame: HTTP2Frame, written: EventLoopPromise<Void>?)] = []
    /// Closes a draining connection whose drain takes longer than the policy's grace.
    private var graceTimer: Scheduled<Void>?
    /// The last `authorization` header recorded and its redacted form: a provider sends one token for many requests.
    var redactedAuthorization: (header: String, redacted: String)?
    /// The connection-level receive window (RFC 9113 §6.9.2: 65,535 at the start, and apnsim keeps it there).
    /// Without a stream multiplexer nothing else replenishes it; see ``replenish(_:context:)``.
    private static let connectionWindow = 65_535

    init(connection: ProviderConnection, watch: ProtocolErrorWatch) {
        self.connection = connection
        self.watch = watch
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if case .badCertificate(let why) = connection.auth {
            connection.recordConnection(.badCertificate, reason: RejectionReason.badCertificate.rawValue,
                                        explanation: "\(why); every request on this connection is answered 403 BadCertificate")
        }
        if case .certificate(let certificate) = connection.auth {
            let matches = certificate.environments.contains(connection.environment)
            if !matches { connection.services.metrics.connectionRefused("certificate_environment") }
            perform(connection.state.connectionStarted(certificateMatchesEnvironment: matches), context: context)
            flushIfNeeded(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        graceTimer?.cancel()
    }

    // MARK: - Frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let streamID = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            headersReceived(headers, streamID: streamID, context: context)
        case .data(let data):
            let chunk: ByteBuffer? = if case .byteBuffer(let bytes) = data.data { bytes } else { nil }
            switch connection.state.dataReceived(streamID: streamID, chunk: chunk, endStream: data.endStream) {
            case .none:
                break
            case .finish(let exchange):
                finish(exchange, streamID: streamID, context: context)
            case .answerEarly(let exchange, let clientStillSending):
                answerOversized(exchange, streamID: streamID, clientStillSending: clientStillSending, context: context)
            case .goAway(let goAway):
                perform(.goAway(goAway), context: context)
            }
        case .rstStream:
            connection.state.streamClosed(streamID)
        case .settings(.ack):
            connection.state.allowance.settingsAcknowledged()
        default:
            break  // PRIORITY and the like carry nothing apnsim reads; connection frames are NIOHTTP2's.
        }
    }

    private func headersReceived(_ headers: HTTP2Frame.FramePayload.Headers, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        let faults = connection.services.faults, clock = connection.services.clock, environment = connection.environment
        let action = connection.state.headersReceived(streamID: streamID, endStream: headers.endStream) {
            faults.connectionFault(environment: environment, now: clock.now())
        }
        switch action {
        case .ignore:
            return
        case .process:
            break
        case .goAwayThenProcess(let goAway):
            perform(.goAway(goAway), context: context)
        case .holdWindowThenProcess(let fault):
            perform(.holdWindow(fault), context: context, at: streamID)
        case .silence(let fault):
            silenced(headers.headers, streamID: streamID, fault: fault)
            perform(.silence(fault), context: context, at: streamID)
            return
        case .refuseOverLimit(let limit):
            refusedOverLimit(headers.headers, streamID: streamID, limit: limit)
            watch.resetting(streamID)
            write(HTTP2Frame(streamID: streamID, payload: .rstStream(.refusedStream)), context: context)
            return
        case .refuse(let lastStreamID, let fault, let then):
            refuse(headers.headers, streamID: streamID, lastStreamID: lastStreamID, fault: fault)
            switch then {
            case .nothing: break
            case .goAway(let goAway): perform(.goAway(goAway), context: context)
            case .drop(let fault): perform(.close(dropped: fault), context: context, at: streamID)
            }
            return
        }
        let exchange = begin(headers.headers, streamID: streamID, context: context)
        if let complete = connection.state.streamOpened(streamID, exchange: exchange, endStream: headers.endStream) {
            finish(complete, streamID: streamID, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushBatch(context: context)
        context.fireChannelReadComplete()
    }

    /// Hands the batch's 200s to the store's commit (store files), flushes what was written, and closes a draining
    /// connection that has nothing left in flight.
    func flushBatch(context: ChannelHandlerContext) {
        let (handToStore, next) = connection.state.readBatchEnded()
        if handToStore, let commits = connection.services.commits {
            let answers = awaitingCommit
            awaitingCommit.removeAll()
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            commits.afterCommit { result in
                loopBound.eventLoop.execute {
                    let (handler, context) = loopBound.value
                    handler.committed(answers, result: result, context: context)
                }
            }
        }
        flushIfNeeded(context: context)
        perform(next, context: context)
    }

    /// The store holds every push of `answers`: their 200s go out now.
    private func committed(_ answers: [(frame: HTTP2Frame, written: EventLoopPromise<Void>?)], result: Result<Void, any Error>,
                           context: ChannelHandlerContext) {
        if case .failure(let error) = result {
            // The pushes were accepted and routed; only their record is missing. Say so loudly, answer as decided.
            connection.services.logger.error("the store could not commit accepted pushes", metadata: ["error": "\(error)"])
        }
        for answer in answers { context.write(wrapOutboundOut(answer.frame), promise: answer.written) }
        context.flush()
        perform(connection.state.batchCommitted(), context: context)
    }

    // MARK: - Events and errors

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // NIOHTTP2 raises three or four events a stream (created, windows updated, closed): each is told by its type
        // first, as every `as?` from `Any` is a runtime cast (five failed casts an event were 8,000 instructions a push).
        let type = type(of: event)
        if type == NIOHTTP2StreamCreatedEvent.self {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if type == NIOHTTP2WindowUpdatedEvent.self {
            if let window = event as? NIOHTTP2WindowUpdatedEvent, window.streamID == .rootStream { replenish(window, context: context) }
            context.fireUserInboundEventTriggered(event)
            return
        }
        if type == StreamClosedEvent.self, let closed = event as? StreamClosedEvent {
            // Comes as each answer is written, mid-batch: no flush here, the batch's one flush comes at its end.
            connection.state.streamClosed(closed.streamID)
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch event {
        case let idle as IdleStateHandler.IdleStateEvent where idle == .read:
            perform(connection.state.idleTimeout(), context: context)
            flushIfNeeded(context: context)
        case is ChannelShouldQuiesceEvent:
            perform(connection.state.shutdownRequested(), context: context)
            flushIfNeeded(context: context)
        case let injected as InjectedFault:
            perform(connection.state.faultInjected(injected.fault), context: context)
            flushIfNeeded(context: context)
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let code = watch.connectionError {
            // NIOHTTP2 has written GOAWAY with this code; nothing more can be read from this connection.
            let action = connection.state.connectionErrorSent()
            guard action != .none else { return }
            connection.recordConnection(.goAway, errorCode: code, lastStreamID: connection.lastStreamID,
                                        explanation: "the client broke the HTTP/2 protocol (\(String(describing: error).prefix { $0 != "(" })); "
                                            + "the gateway sent GOAWAY and closed the connection")
            connection.services.logger.debug("provider connection error; closing",
                                             metadata: ["peer": "\(connection.remoteAddress)", "code": "\(code)", "error": "\(error)"])
            context.flush()
            perform(action, context: context)
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

    // MARK: - Carrying out what the state machine decided

    /// Writes, records and closes as `action` says; `streamID` is the push a fault fell due on, if one did.
    private func perform(_ action: ProviderConnectionStateMachine.ConnectionAction, context: ChannelHandlerContext,
                         at streamID: HTTP2StreamID? = nil) {
        switch action {
        case .none:
            break
        case .goAway(let goAway):
            connection.recordGoAway(goAway)
            if let fault = goAway.fault {
                connection.recordFault(fault, event: "GOAWAY",
                                       explanation: "GOAWAY {\"reason\":\"\(goAway.reason)\"} with last stream \(Int(goAway.lastStreamID))")
            }
            let frame = HTTP2Frame.goAway(lastStreamID: goAway.lastStreamID, reason: RejectionReason(goAway.reason, status: 0),
                                          allocator: context.channel.allocator, errorCode: goAway.errorCode)
            // Written now, flushed when the current read or event ends: a stream this GOAWAY lets through is
            // processed first, so the connection is not taken for drained before it is.
            let written = context.eventLoop.makePromise(of: Void.self)
            write(frame, context: context, promise: written)
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in
                let (handler, context) = loopBound.value
                handler.perform(handler.connection.state.goAwayWritten(goAway), context: context)
            }
            if goAway.drains {
                graceTimer = context.eventLoop.scheduleTask(in: TimeAmount(connection.services.policy.shutdownGrace)) {
                    let (handler, context) = loopBound.value
                    handler.perform(handler.connection.state.drainGraceExpired(), context: context)
                }
            }
        case .close(let fault):
            if let fault {
                let at = streamID.map { " at stream \(Int($0))" } ?? ""
                connection.recordFault(fault, event: "DROP", explanation: "the connection was closed without GOAWAY\(at)")
                connection.recordConnection(.dropped, fault: fault, explanation: "fault \(fault.id ?? "?") closed the connection without GOAWAY\(at)")
            }
            graceTimer?.cancel()
            context.close(promise: nil)
        case .settings(let streams, let fault):
            connection.recordFault(fault, event: "SETTINGS", explanation: "SETTINGS MAX_CONCURRENT_STREAMS \(streams)")
            write(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([connection.streamLimitSetting(streams)]))),
                  context: context)
        case .holdWindow(let fault):
            let at = streamID.map { " from stream \(Int($0))" } ?? ""
            connection.recordFault(fault, event: "HANG", explanation:
                "SETTINGS_INITIAL_WINDOW_SIZE 0\(at): the gateway grants no more flow-control window, so no new stream can send its body")
            write(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([
                HTTP2Setting(parameter: .initialWindowSize, value: 0),
            ]))), context: context)
        case .silence(let fault):
            let at = streamID.map { " at stream \(Int($0))" } ?? ""
            connection.recordFault(fault, event: "HANG", explanation:
                "the connection went silent\(at): nothing more is read or written, PINGs go unanswered, and it is not closed")
            // What was answered before goes out; from here on nothing does.
            flushIfNeeded(context: context)
            graceTimer?.cancel()
            try? context.pipeline.syncOperations.addHandler(SilentConnection(), position: .first)
        }
    }

    /// Tops the connection window back up once it is half spent. NIOHTTP2 reports every change, including the
    /// bytes of DATA frames it drops for streams already reset (RFC 9113 §6.9: those count too); counting only the
    /// frames this handler sees would leak window until the connection stalls.
    private func replenish(_ window: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let inbound = window.inboundWindowSize, inbound <= Self.connectionWindow / 2 else { return }
        write(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindow - inbound)),
              context: context)
        flushIfNeeded(context: context)  // at once: the client may be waiting for window to send the rest of a body
    }

    /// Writes a frame now; it is flushed when the current read batch or event ends.
    func write(_ frame: HTTP2Frame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        context.write(wrapOutboundOut(frame), promise: promise)
        needsFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        guard needsFlush else { return }
        needsFlush = false
        context.flush()
    }
}

@available(*, unavailable)
extension ProviderConnectionHandler: Sendable {}
