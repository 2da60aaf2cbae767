import APNSimCore
import Logging
import APNSimStore
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Answers the push requests of one provider connection, one per HTTP/2 stream, working on frames directly
/// behind `NIOHTTP2Handler` rather than through a channel per stream: the per-stream channels cost more than
/// the whole of validation and recording in `Benchmarks/provider.sh` profiles.
///
/// Headers are validated as soon as they arrive; the body is kept only up to the push type's limit. A body
/// that crosses the limit is answered at once (413, or the head's rejection if there was one) and the stream
/// is reset, so a 10 MB body costs at most one flow-control window of reading. Answers written while a batch of
/// frames is read go out with one flush when the batch ends.
///
/// With a store file, a push is durable before its 200 goes out: the 200s of a read batch wait, unwritten, until
/// the store has committed everything recorded so far (``CommitPoint``), so a gateway killed at any moment has
/// recorded every push it accepted. Rejections go out at once: there is nothing of theirs to lose.
final class PushStreamsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let connection: ProviderConnection
    private var exchanges: [HTTP2StreamID: PushExchange] = [:]
    private var needsFlush = false
    /// 200s of the current read batch, waiting for the store to commit (store files only).
    private var awaitingCommit: [(frame: HTTP2Frame, written: EventLoopPromise<Void>?)] = []
    /// Batches of 200s handed to the store and not yet written.
    private var commitsPending = 0
    /// Set after a graceful GOAWAY: close once nothing is in flight.
    private var draining = false
    /// After a GOAWAY: streams above this one are not processed (recorded as refused).
    private var refuseAbove: HTTP2StreamID?
    /// The fault whose GOAWAY set ``refuseAbove``, if a fault's did.
    private var refusingFault: Fault?
    /// Answers a `latency` fault is holding back.
    private var delayed = 0
    /// A fault's GOAWAY waiting for the end of the refused stream that triggered it: sent at once, NIOHTTP2 would
    /// drop that stream and take the rest of its body as a protocol error.
    private var pendingGoAway: (fault: Fault, lastStreamID: HTTP2StreamID, after: HTTP2StreamID)?
    /// The connection-level receive window (RFC 9113 §6.9.2: 65,535 at the start, and apnsim keeps it there).
    /// Without a stream multiplexer nothing else replenishes it; see ``replenish(_:context:)``.
    private static let connectionWindow = 65_535

    init(connection: ProviderConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let streamID = frame.streamID
        switch frame.payload {
        case .headers(let headers) where streamID > connection.lastStreamID:
            if let limit = refuseAbove, streamID > limit {
                refuse(headers.headers, streamID: streamID, lastStreamID: limit, fault: refusingFault)
                return
            }
            if let fault = connection.services.faults.connectionFault(environment: connection.environment,
                                                                       now: connection.services.clock.now()),
               act(on: fault, headers: headers.headers, streamID: streamID, endStream: headers.endStream, context: context) {
                return
            }
            connection.noteStream(streamID)
            let exchange = begin(headers.headers, streamID: streamID, context: context)
            if headers.endStream {
                finish(exchange, streamID: streamID, context: context)
            } else {
                exchanges[streamID] = exchange
            }
        case .data(let data):
            if let pending = pendingGoAway, pending.after == streamID {
                if data.endStream {
                    pendingGoAway = nil
                    sendGoAway(pending.fault, lastStreamID: pending.lastStreamID, context: context)
                }
                return
            }
            guard case .byteBuffer(let chunk) = data.data else { return }
            // No exchange: a request answered early whose body is still arriving, until our reset lands.
            guard var exchange = exchanges[streamID] else { return }
            exchange.receive(chunk)
            if exchange.isOversized {
                exchanges[streamID] = nil
                answerOversized(exchange, streamID: streamID, clientStillSending: !data.endStream, context: context)
            } else if data.endStream {
                exchanges[streamID] = nil
                finish(exchange, streamID: streamID, context: context)
            } else {
                exchanges[streamID] = exchange
            }
        case .rstStream:
            exchanges[streamID] = nil
        default:
            break  // Trailers, PRIORITY and the like carry nothing apnsim reads; connection frames are not ours.
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushBatch(context: context)
        context.fireChannelReadComplete()
    }

    /// Hands the batch's 200s to the store's commit (store files), flushes what was written, and closes a
    /// draining connection that has nothing left in flight.
    private func flushBatch(context: ChannelHandlerContext) {
        if !awaitingCommit.isEmpty, let commits = connection.services.commits {
            let answers = awaitingCommit
            awaitingCommit.removeAll()
            commitsPending += 1
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            commits.afterCommit { result in
                loopBound.eventLoop.execute {
                    let (handler, context) = loopBound.value
                    handler.committed(answers, result: result, context: context)
                }
            }
        }
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        closeIfDrained(context: context)
    }

    /// The store holds every push of `answers`: their 200s go out now.
    private func committed(_ answers: [(frame: HTTP2Frame, written: EventLoopPromise<Void>?)], result: Result<Void, any Error>,
                           context: ChannelHandlerContext) {
        commitsPending -= 1
        if case .failure(let error) = result {
            // The pushes were accepted and routed; only their record is missing. Say so loudly, answer as decided.
            connection.services.logger.error("the store could not commit accepted pushes", metadata: ["error": "\(error)"])
        }
        for answer in answers { context.write(wrapOutboundOut(answer.frame), promise: answer.written) }
        context.flush()
        closeIfDrained(context: context)
    }

    /// After a graceful GOAWAY, closes the connection once every request in flight has its answer written.
    private func closeIfDrained(context: ChannelHandlerContext) {
        guard draining, exchanges.isEmpty, awaitingCommit.isEmpty, commitsPending == 0, delayed == 0 else { return }
        draining = false
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let drain as ProviderConnectionHandler.DrainThenClose:
            draining = true
            if refuseAbove == nil { refuseAbove = drain.lastStreamID }
            closeIfDrained(context: context)
            return
        case let closed as StreamClosedEvent:
            exchanges[closed.streamID] = nil
        case let window as NIOHTTP2WindowUpdatedEvent where window.streamID == .rootStream:
            replenish(window, context: context)
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Tops the connection window back up once it is half spent. NIOHTTP2 reports every change, including the
    /// bytes of DATA frames it drops for streams already reset (RFC 9113 §6.9: those count too); counting only the
    /// frames this handler sees would leak window until the connection stalls.
    private func replenish(_ window: NIOHTTP2WindowUpdatedEvent, context: ChannelHandlerContext) {
        guard let inbound = window.inboundWindowSize, inbound <= Self.connectionWindow / 2 else { return }
        write(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.connectionWindow - inbound)),
              context: context)
        context.flush()
        needsFlush = false
    }

    // MARK: - Connection faults

    /// A `goAway` or `drop` fault falling due on this stream: GOAWAY naming the last stream processed (this one
    /// is not, unless the fault names it), then the streams in flight are answered and the connection closes; or
    /// the connection closes at once. Returns whether the stream is done with (refused).
    private func act(on fault: Fault, headers: HPACKHeaders, streamID: HTTP2StreamID, endStream: Bool,
                     context: ChannelHandlerContext) -> Bool {
        if fault.resolvedKind == .drop {
            connection.recordFault(fault, event: "DROP", explanation: "the connection was closed without GOAWAY at stream \(Int(streamID))")
            refuse(headers, streamID: streamID, lastStreamID: connection.lastStreamID, fault: fault)
            context.close(promise: nil)
            return true
        }
        let last = fault.lastStreamId.map { HTTP2StreamID($0) } ?? connection.lastStreamID
        refuseAbove = last
        refusingFault = fault
        guard streamID > last else {
            sendGoAway(fault, lastStreamID: last, context: context)
            return false
        }
        refuse(headers, streamID: streamID, lastStreamID: last, fault: fault)
        if endStream {
            sendGoAway(fault, lastStreamID: last, context: context)
        } else {
            pendingGoAway = (fault, last, streamID)
        }
        return true
    }

    private func sendGoAway(_ fault: Fault, lastStreamID last: HTTP2StreamID, context: ChannelHandlerContext) {
        connection.recordFault(fault, event: "GOAWAY",
                               explanation: "GOAWAY {\"reason\":\"\(fault.reason ?? "Shutdown")\"} with last stream \(Int(last))")
        write(HTTP2Frame.goAway(lastStreamID: last, reason: RejectionReason(fault.reason ?? "Shutdown", status: 0),
                                allocator: context.channel.allocator, errorCode: HTTP2ErrorCode(networkCode: fault.errorCode ?? 0)),
              context: context)
        draining = true
    }

    /// Records a stream above a GOAWAY's last stream, which the gateway does not process: the provider must send
    /// it again on a new connection.
    private func refuse(_ headers: HPACKHeaders, streamID: HTTP2StreamID, lastStreamID: HTTP2StreamID, fault: Fault?) {
        let head = PushRequestHead(headers: headers.map { ($0.name, $0.value) })
        let exchange = PushExchange(head: head, verdict: .failure(Rejection(.shutdown, "not processed")),
                                    body: ByteBuffer(), receivedAt: connection.services.clock.now(), started: .now(), fault: fault)
        record(exchange, apnsID: head["apns-id"] ?? "", payload: "", status: 0, reason: nil,
               explanation: "not processed: stream \(Int(streamID)) is above the last stream \(Int(lastStreamID)) of the connection's GOAWAY; send it again on a new connection")
    }

    // MARK: - Stages

    private func begin(_ headers: HPACKHeaders, streamID: HTTP2StreamID, context: ChannelHandlerContext) -> PushExchange {
        let services = connection.services
        let head = PushRequestHead(headers: headers.map { ($0.name, $0.value) })
        let now = services.clock.now()
        let environment = connection.environment
        var auth = connection.auth
        // A clockSkew fault moves the clock the checks read (provider tokens' iat above all).
        let checkedAt = now.addingTimeInterval(services.faults.skew(now: now))
        var verdict = services.world.read { world in
            services.validator.validateHead(head, environment: environment, auth: &auth, world: world, now: checkedAt)
        }
        var fault: Fault?
        var resetCode: Int?
        if case .success(let plan) = verdict, let effect = services.faults.pushEffect(token: plan.token, environment: environment,
                                                                                           streamID: Int(streamID), now: now) {
            switch effect {
            case .reject(let rejection, let cause):
                verdict = .failure(rejection)
                fault = cause
            case .reset(let code, let cause):
                resetCode = code
                fault = cause
            }
        }
        connection.auth = auth
        connection.raiseStreamLimitIfAuthenticated()
        var grant: ProviderTokenSession.Grant?
        if case .token(let session) = auth { grant = session.currentGrant }
        return PushExchange(head: head, verdict: verdict, body: context.channel.allocator.buffer(capacity: 0),
                            receivedAt: now, started: .now(), grant: grant, fault: fault, resetCode: resetCode)
    }

    private func finish(_ exchange: PushExchange, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        var exchange = exchange
        let services = connection.services
        if let code = exchange.resetCode {
            record(exchange, apnsID: exchange.head["apns-id"] ?? "", payload: exchange.bodyText, status: 0, reason: nil,
                   explanation: "the stream was reset with RST_STREAM \(HTTP2ErrorCode(networkCode: code)) instead of answered")
            write(HTTP2Frame(streamID: streamID, payload: .rstStream(HTTP2ErrorCode(networkCode: code))), context: context)
            return
        }
        if let (delay, fault) = services.faults.latency(token: try? exchange.verdict.get().token, environment: connection.environment,
                                                        now: services.clock.now()) {
            // The answer waits; the connection goes on serving other streams meanwhile.
            exchange.fault = exchange.fault ?? fault
            delayed += 1
            let held = exchange
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                let (handler, context) = loopBound.value
                handler.delayed -= 1
                handler.decide(held, streamID: streamID, context: context)
                handler.flushBatch(context: context)
            }
            return
        }
        decide(exchange, streamID: streamID, context: context)
    }

    private func decide(_ exchange: PushExchange, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        switch exchange.verdict {
        case .failure(let rejection):
            answer(exchange, rejection: rejection, streamID: streamID, context: context)
        case .success(let plan):
            let rejection = connection.services.validator.validateBody(exchange.body.readableBytesView, plan: plan)
            answer(exchange, rejection: rejection, streamID: streamID, context: context)
        }
    }

    private func answerOversized(_ exchange: PushExchange, streamID: HTTP2StreamID, clientStillSending: Bool,
                                 context: ChannelHandlerContext) {
        let rejection: Rejection
        switch exchange.verdict {
        case .failure(let headRejection): rejection = headRejection
        case .success(let plan): rejection = connection.services.validator.oversizedBody(plan: plan)
        }
        guard clientStillSending else {
            answer(exchange, rejection: rejection, streamID: streamID, context: context)
            return
        }
        // Stop the rest of the body (RFC 9113 §8.1: a complete response, then RST_STREAM NO_ERROR). The reset
        // waits for the answer's write: a reset discards DATA still queued behind flow control.
        let answered = context.eventLoop.makePromise(of: Void.self)
        answer(exchange, rejection: rejection, streamID: streamID, context: context, written: answered)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        answered.futureResult.whenComplete { _ in
            loopBound.value.writeAndFlush(NIOAny(HTTP2Frame(streamID: streamID, payload: .rstStream(.noError))), promise: nil)
        }
    }

    // MARK: - Answer

    /// Writes the response; `written` completes when its last frame is written.
    private func answer(_ exchange: PushExchange, rejection: Rejection?, streamID: HTTP2StreamID,
                        context: ChannelHandlerContext, written: EventLoopPromise<Void>? = nil) {
        let apnsID = exchange.head["apns-id"] ?? connection.responseIDs.upperCaseUUID()
        let payload = exchange.bodyText
        record(exchange, apnsID: apnsID, payload: payload, status: rejection?.reason.status ?? 200, reason: rejection?.reason.rawValue,
               explanation: rejection?.explanation)
        // IDs are unique per response, so they stay out of the HPACK dynamic table: indexing them would only
        // evict useful entries and cost a table search per response.
        var headers = HPACKHeaders()
        guard let rejection else {
            if case .success(let plan) = exchange.verdict {
                connection.services.router.route(plan, apnsID: apnsID, payload: payload, now: exchange.receivedAt)
            }
            headers.add(name: ":status", value: "200")
            headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
            if connection.environment == .development {
                // Development only, lower case, as in Apple's traces (Apple, "Handling notification responses from
                // APNs").
                headers.add(name: "apns-unique-id", value: connection.responseIDs.lowerCaseUUID(), indexing: .nonIndexable)
            }
            let frame = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))
            if connection.services.commits != nil {
                awaitingCommit.append((frame, written))
            } else {
                write(frame, context: context, promise: written)
            }
            return
        }
        headers.add(name: ":status", value: String(rejection.reason.status))
        headers.add(name: "content-type", value: "application/json")
        headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
        write(HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers))), context: context)
        let body = context.channel.allocator.buffer(string: rejection.responseBody)
        write(HTTP2Frame(streamID: streamID, payload: .data(.init(data: .byteBuffer(body), endStream: true))),
              context: context, promise: written)
    }

    /// Writes a frame now and flushes it when the current read batch ends.
    private func write(_ frame: HTTP2Frame, context: ChannelHandlerContext, promise: EventLoopPromise<Void>? = nil) {
        context.write(wrapOutboundOut(frame), promise: promise)
        needsFlush = true
    }

    private func record(_ exchange: PushExchange, apnsID: String, payload: String, status: Int, reason: String?,
                        explanation: String?) {
        let plan = try? exchange.verdict.get()
        var headers = [String: String](minimumCapacity: exchange.head.headers.count)
        for (name, value) in exchange.head.headers where headers[name] == nil {
            headers[name] = name == "authorization" ? Self.redacted(value) : value
        }
        let tokenText = plan?.token.hex ?? PushValidator.tokenText(inPath: exchange.head.path).map { $0.lowercased() }
        let elapsed = NIODeadline.now() - exchange.started
        connection.services.recorder.record(SendRecord(
            receivedAt: exchange.receivedAt,
            environment: connection.environment.rawValue,
            authMode: connection.auth.modeName,
            method: exchange.head.method,
            path: exchange.head.path,
            token: tokenText,
            topic: plan?.topic ?? exchange.head["apns-topic"],
            pushType: plan?.pushType.rawValue ?? exchange.head["apns-push-type"],
            apnsID: apnsID,
            headers: headers,
            payload: payload,
            payloadBytes: exchange.bodyBytes,
            status: status,
            reason: reason,
            explanation: explanation,
            durationMicros: Int(elapsed.nanoseconds / 1000),
            teamID: exchange.grant?.teamID,
            keyID: exchange.grant?.keyID,
            fault: exchange.fault?.summary
        ))
    }

    /// Keeps a JWT's header and claims (useful when debugging) and drops its signature.
    private static func redacted(_ authorization: String) -> String {
        guard let lastDot = authorization.utf8.lastIndex(of: UInt8(ascii: ".")) else { return authorization }
        return authorization[..<lastDot] + ".<signature>"
    }
}
