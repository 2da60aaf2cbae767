import APNSimRules
import APNSimStore
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// The push work of ``ProviderConnectionHandler``: validate a request's head, wait for its body, answer, record.
extension ProviderConnectionHandler {
    // MARK: - Refused

    /// Records a stream above a GOAWAY's last stream, which the gateway does not process: the provider must send
    /// it again on a new connection.
    func refuse(_ headers: HPACKHeaders, streamID: HTTP2StreamID, lastStreamID: HTTP2StreamID, fault: Fault?) {
        notProcessed(headers, fault: fault, explanation:
            "not processed: stream \(Int(streamID)) is above the last stream \(Int(lastStreamID)) of the connection's GOAWAY; send it again on a new connection")
    }

    /// Records the push a `hang` at `silence` fell due on: the connection went silent before it was processed.
    func silenced(_ headers: HPACKHeaders, streamID: HTTP2StreamID, fault: Fault) {
        notProcessed(headers, fault: fault, explanation:
            "not processed: the connection went silent at stream \(Int(streamID)) (a hang fault); send it again on a new connection")
    }

    /// Records a push on a stream over the connection's limit, which is reset with REFUSED_STREAM.
    func refusedOverLimit(_ headers: HPACKHeaders, streamID: HTTP2StreamID, limit: Int) {
        let why = if case .token = connection.auth, limit == connection.services.policy.initialTokenStreams, limit < connection.services.policy.maxConcurrentStreams {
            "; a token connection may have \(limit) until a request carries a valid provider token, then \(connection.services.policy.maxConcurrentStreams)"
        } else {
            ""
        }
        notProcessed(headers, fault: nil, explanation:
            "not processed: stream \(Int(streamID)) was refused (RST_STREAM REFUSED_STREAM) because the client already had \(limit) streams open, "
            + "its SETTINGS_MAX_CONCURRENT_STREAMS\(why); send it again once an answer has come")
    }

    /// Records a push the gateway did not process: status 0, with `explanation`.
    private func notProcessed(_ headers: HPACKHeaders, fault: Fault?, explanation: String) {
        let head = PushRequestHead(headers: headers.map { ($0.name, $0.value) })
        let exchange = PushExchange(head: head, verdict: .failure(Rejection(.shutdown, "not processed")),
                                    body: ByteBuffer(), receivedAt: connection.services.clock.now(), started: .now(), fault: fault)
        record(exchange, apnsID: head["apns-id"] ?? "", payload: "", status: 0, reason: nil, explanation: explanation)
    }

    // MARK: - Stages

    func begin(_ headers: HPACKHeaders, streamID: HTTP2StreamID, context: ChannelHandlerContext) -> PushExchange {
        let services = connection.services
        let head = PushRequestHead(headers: headers.map { ($0.name, $0.value) })
        let now = services.clock.now()
        let environment = connection.environment
        var auth = connection.auth
        // A clockSkew fault moves the clock the checks read (provider tokens' iat above all).
        let checkedAt = now.addingTimeInterval(services.faults.skew(now: now))
        let api: PushExchange.API = connection.role == .management ? .channels : head.path.hasPrefix("/4/") ? .broadcast : .device
        let span = services.tracing.requestStarted(head)
        var verdict = services.tracing.child("apns.validate", of: span) {
            Self.validate(head, api: api, environment: environment, auth: &auth, services: services, now: checkedAt)
        }
        var fault: Fault?
        var resetCode: Int?
        var hung = false
        if case .success(.push(let plan)) = verdict, let effect = services.faults.pushEffect(token: plan.token, environment: environment,
                                                                                           streamID: Int(streamID), now: now) {
            switch effect {
            case .reject(let rejection, let cause):
                verdict = .failure(rejection)
                fault = cause
            case .reset(let code, let cause):
                resetCode = code
                fault = cause
            case .hang(let cause):
                hung = true
                fault = cause
            }
        }
        connection.auth = auth
        connection.raiseStreamLimitIfAuthenticated()
        var grant: ProviderTokenSession.Grant?
        if case .token(let session) = auth { grant = session.currentGrant }
        var exchange = PushExchange(head: head, api: api, verdict: verdict, body: context.channel.allocator.buffer(capacity: 0),
                                    receivedAt: now, started: .now(), grant: grant, fault: fault, resetCode: resetCode, hung: hung, span: span)
        if services.replicas != nil { exchange.unknown = Self.unknown(head, verdict: verdict, services: services) }
        return exchange
    }

    /// What `head` names that another replica may have written and this one not heard of yet: a token refused as no
    /// device's; any channel (created or deleted through another replica: read-your-writes, docs/cluster.md).
    private static func unknown(_ head: PushRequestHead, verdict: Result<RequestPlan, Rejection>,
                                services: GatewayServices) -> PushExchange.Unknown? {
        switch verdict {
        case .failure(let rejection) where rejection.reason == .badDeviceToken:
            // Whatever the world holds now: a word of the registration may have reached it since the head was validated
            // (checking it here answered such a push BadDeviceToken, 1 in 2,000 of the first pushes to freshly
            // registered devices, `Benchmarks/cluster_e2e.sh`). The head is validated again after the store is read.
            guard let text = PushValidator.tokenText(inPath: head.path), let token = DeviceToken(String(text)) else { return nil }
            return .token(token)
        case .failure(let rejection) where rejection.reason == .channelNotRegistered:
            return head["apns-channel-id"].map { .channel($0) }
        case .success(.broadcast(let plan)):
            return .channel(plan.channel.id)
        case .success(.channel(let plan)):
            switch plan.operation {
            case .read(let channel), .delete(let channel): return .channel(channel.id)
            case .create, .list: return nil
            }
        default:
            return nil
        }
    }

    func finish(_ exchange: PushExchange, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        var exchange = exchange
        let services = connection.services
        if let code = exchange.resetCode {
            record(exchange, apnsID: exchange.head["apns-id"] ?? "", payload: exchange.bodyText, status: 0, reason: nil,
                   explanation: "the stream was reset with RST_STREAM \(HTTP2ErrorCode(networkCode: code)) instead of answered")
            write(HTTP2Frame(streamID: streamID, payload: .rstStream(HTTP2ErrorCode(networkCode: code))), context: context)
            return
        }
        if exchange.hung {
            // Nothing is written: the stream stays open until the client resets it or closes the connection.
            record(exchange, apnsID: exchange.head["apns-id"] ?? "", payload: exchange.bodyText, status: 0, reason: nil,
                   explanation: "never answered: a hang fault holds stream \(Int(streamID)) open, and the push was not processed")
            return
        }
        if let (delay, fault) = services.faults.latency(token: (try? exchange.verdict.get())?.token, environment: connection.environment,
                                                        now: services.clock.now()) {
            // The answer waits; the connection goes on serving other streams meanwhile.
            exchange.fault = exchange.fault ?? fault
            connection.state.answerHeld()
            let held = exchange
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
                let (handler, context) = loopBound.value
                handler.decide(held, streamID: streamID, context: context)
                handler.connection.state.heldAnswerReleased()
                handler.flushBatch(context: context)
            }
            return
        }
        decide(exchange, streamID: streamID, context: context)
    }

    private func decide(_ exchange: PushExchange, streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        if let unknown = exchange.unknown, let replicas = connection.services.replicas {
            learn(unknown, from: replicas, for: exchange, streamID: streamID, context: context)
            return
        }
        switch exchange.verdict {
        case .failure(let rejection):
            answer(exchange, rejection: rejection, streamID: streamID, context: context)
        case .success(.push(let plan)):
            let rejection = connection.services.validator.validateBody(exchange.body.readableBytesView, plan: plan)
            answer(exchange, rejection: rejection, streamID: streamID, context: context)
        case .success(let plan):
            decideBroadcastAPI(exchange, plan: plan, streamID: streamID, context: context)
        }
    }

    /// Asks the store whether another replica wrote what `exchange`'s head was refused for (registered its token,
    /// created its channel) before answering it; when one did, the head is validated again, knowing it. Other streams
    /// are answered meanwhile.
    private func learn(_ unknown: PushExchange.Unknown, from replicas: ReplicaLinks, for exchange: PushExchange, streamID: HTTP2StreamID,
                       context: ChannelHandlerContext) {
        var exchange = exchange
        exchange.unknown = nil
        connection.state.answerHeld()
        let loop = context.eventLoop
        let waiting = NIOLoopBound((handler: self, context: context, exchange: exchange), eventLoop: loop)
        Task {
            let known = switch unknown {
            case .token(let token): await replicas.adopt(token)
            case .channel(let id): await replicas.refreshChannel(id)
            }
            loop.execute {
                var (handler, context, exchange) = waiting.value
                if known { exchange.verdict = handler.validatedAgain(exchange) }
                handler.decide(exchange, streamID: streamID, context: context)
                handler.connection.state.heldAnswerReleased()
                handler.flushBatch(context: context)
            }
        }
    }

    /// `exchange`'s head validated again (the world changed since: a token learned from the store).
    private func validatedAgain(_ exchange: PushExchange) -> Result<RequestPlan, Rejection> {
        var auth = connection.auth
        let verdict = Self.validate(exchange.head, api: exchange.api, environment: connection.environment, auth: &auth,
                                    services: connection.services, now: exchange.receivedAt)
        connection.auth = auth
        return verdict
    }

    /// `head` checked by the rules of `api` against the world as the validator reads it now.
    private static func validate(_ head: PushRequestHead, api: PushExchange.API, environment: APNsEnvironment,
                                 auth: inout ConnectionAuth, services: GatewayServices, now: Date) -> Result<RequestPlan, Rejection> {
        services.world.read { world in
            let validator = services.validator
            switch api {
            case .device:
                return validator.validateHead(head, environment: environment, auth: &auth, world: world, now: now).map(RequestPlan.push)
            case .broadcast:
                return validator.validateBroadcastHead(head, environment: environment, auth: &auth, world: world, now: now)
                    .map(RequestPlan.broadcast)
            case .channels:
                return validator.validateChannelHead(head, environment: environment, auth: &auth, world: world, now: now)
                    .map(RequestPlan.channel)
            }
        }
    }

    func answerOversized(_ exchange: PushExchange, streamID: HTTP2StreamID, clientStillSending: Bool,
                                 context: ChannelHandlerContext) {
        let rejection: Rejection
        switch exchange.verdict {
        case .failure(let headRejection): rejection = headRejection
        case .success(.push(let plan)): rejection = connection.services.validator.oversizedBody(plan: plan)
        case .success: rejection = Rejection(.payloadTooLarge, "the body is over \(exchange.limit) bytes, the limit of the broadcast APIs")
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
        var rejection = rejection
        if rejection == nil, let problem = connection.services.storeHealth?.problem {
            // Accepted, the push could not be recorded, nor, on a replica, reach a device linked to another: APNs's
            // answer when it cannot take a push now, and the provider tries again (docs/cluster.md).
            rejection = Rejection(.serviceUnavailable, problem + "; the push was not accepted: try again")
        }
        if exchange.api != .device {
            answerBroadcastAPI(exchange, answer: .init(rejection ?? Rejection(.internalServerError, "no answer was decided")),
                               streamID: streamID, context: context, written: written)
            return
        }
        let apnsID = exchange.head["apns-id"] ?? connection.responseIDs.upperCaseUUID()
        let payload = exchange.bodyText
        // Development only, lower case, as in Apple's traces (Apple, "Handling notification responses from APNs"); the
        // send and delivery records keep it, as the Push Notifications Console finds a push by it.
        let uniqueID = rejection == nil && connection.environment == .development ? connection.responseIDs.lowerCaseUUID() : nil
        record(exchange, apnsID: apnsID, payload: payload, status: rejection?.reason.status ?? 200, reason: rejection?.reason.rawValue,
               explanation: rejection?.explanation, uniqueID: uniqueID)
        // IDs are unique per response, so they stay out of the HPACK dynamic table: indexing them would only
        // evict useful entries and cost a table search per response.
        var headers = HPACKHeaders()
        guard let rejection else {
            if case .success(.push(let plan)) = exchange.verdict {
                connection.services.tracing.child("apns.route", of: exchange.span) {
                    connection.services.router.route(plan, apnsID: apnsID, uniqueID: uniqueID, payload: payload, now: exchange.receivedAt)
                }
            }
            headers.add(name: ":status", value: "200")
            headers.add(name: "apns-id", value: apnsID, indexing: .nonIndexable)
            if let uniqueID { headers.add(name: "apns-unique-id", value: uniqueID, indexing: .nonIndexable) }
            let frame = HTTP2Frame(streamID: streamID, payload: .headers(.init(headers: headers, endStream: true)))
            if connection.services.commits != nil {
                awaitingCommit.append((frame, written))
                connection.state.answerAwaitsCommit()
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

    func record(_ exchange: PushExchange, apnsID: String, payload: String, status: Int, reason: String?,
                explanation: String?, uniqueID: String? = nil) {
        let plan: PushPlan?, topic: String?
        switch try? exchange.verdict.get() {
        case .push(let push)?: (plan, topic) = (push, push.topic)
        case .broadcast(let broadcast)?: (plan, topic) = (nil, broadcast.channel.bundleID)
        case .channel(let channel)?: (plan, topic) = (nil, channel.bundleID)
        case nil:
            let path = exchange.head.path
            (plan, topic) = (nil, exchange.head["apns-topic"] ?? PushValidator.broadcastBundleID(inPath: path)
                ?? PushValidator.channelRoute(path)?.bundleID)
        }
        let headers = RequestHeaders(exchange.head.headers) { name, value in name == "authorization" ? self.redacted(value) : value }
        let tokenText = plan?.token.hex ?? PushValidator.tokenText(inPath: exchange.head.path).map { $0.lowercased() }
        connection.services.tracing.requestAnswered(exchange.span, apnsID: apnsID, uniqueID: uniqueID, status: status, reason: reason)
        let elapsed = NIODeadline.now() - exchange.started
        connection.services.recorder.record(SendRecord(
            receivedAt: exchange.receivedAt,
            environment: connection.environment.rawValue,
            authMode: connection.auth.modeName,
            method: exchange.head.method,
            path: exchange.head.path,
            token: tokenText,
            topic: topic,
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
            fault: exchange.fault?.summary,
            uniqueID: uniqueID
        ))
    }

    /// Keeps a JWT's header and claims (useful when debugging) and drops its signature; the same header as the last
    /// one recorded on this connection is not redacted again.
    private func redacted(_ authorization: String) -> String {
        if let last = redactedAuthorization, last.header == authorization { return last.redacted }
        guard let lastDot = authorization.utf8.lastIndex(of: UInt8(ascii: ".")) else { return authorization }
        let redacted = String(authorization[..<lastDot]) + ".<signature>"
        redactedAuthorization = (authorization, redacted)
        return redacted
    }
}
