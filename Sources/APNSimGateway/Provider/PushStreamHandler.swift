import APNSimCore
import APNSimStore
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Handles one HTTP/2 stream of a provider connection: one push request, one answer.
///
/// Headers are validated as soon as they arrive; the body is kept only up to the push type's limit. A body
/// that crosses the limit is answered at once (413, or the header-stage rejection if there was one) and the
/// stream is reset, so a 10 MB body costs at most one flow-control window of reading.
final class PushStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let connection: ProviderConnection
    private var state = State.awaitingHeaders

    private enum State {
        case awaitingHeaders
        case receiving(Request)
        case answered
    }

    private struct Request {
        var head: PushRequestHead
        var verdict: Result<PushPlan, Rejection>
        var body: ByteBuffer
        var bodyBytes: Int
        var receivedAt: Date
        var started: NIODeadline
        var grant: ProviderTokenSession.Grant?

        /// What the body may grow to before the request is answered early.
        var limit: Int {
            switch verdict {
            case .success(let plan): plan.payloadLimit
            case .failure: PushType.voip.payloadLimit
            }
        }
    }

    init(connection: ProviderConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.headers(let headers), .awaitingHeaders):
            let request = begin(headers.headers, context: context)
            state = .receiving(request)
            if headers.endStream { finish(request, context: context) }
        case (.data(let frame), .receiving(var request)):
            guard case .byteBuffer(var chunk) = frame.data else { return }
            request.bodyBytes += chunk.readableBytes
            let room = request.limit - request.body.readableBytes
            if room > 0, let kept = chunk.readSlice(length: min(room, chunk.readableBytes)) {
                request.body.writeImmutableBuffer(kept)
            }
            state = .receiving(request)
            if request.bodyBytes > request.limit {
                answerOversized(request, clientStillSending: !frame.endStream, context: context)
            } else if frame.endStream {
                finish(request, context: context)
            }
        case (.data, .answered), (.headers, .answered):
            break  // The rest of a request already answered early.
        default:
            break  // Trailers and other frames carry nothing apnsim reads.
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    // MARK: - Stages

    private func begin(_ headers: HPACKHeaders, context: ChannelHandlerContext) -> Request {
        let services = connection.services
        let head = PushRequestHead(headers: headers.map { ($0.name, $0.value) })
        let now = services.clock.now()
        if let id = try? context.channel.syncOptions?.getOption(HTTP2StreamChannelOptions.streamID) {
            connection.noteStream(id)
        }
        let environment = connection.environment
        var auth = connection.auth
        let verdict = services.world.read { world in
            services.validator.validateHead(head, environment: environment, auth: &auth, world: world, now: now)
        }
        connection.auth = auth
        connection.raiseStreamLimitIfAuthenticated()
        var grant: ProviderTokenSession.Grant?
        if case .token(let session) = auth { grant = session.currentGrant }
        return Request(head: head, verdict: verdict, body: context.channel.allocator.buffer(capacity: 0), bodyBytes: 0,
                       receivedAt: now, started: .now(), grant: grant)
    }

    private func finish(_ request: Request, context: ChannelHandlerContext) {
        switch request.verdict {
        case .failure(let rejection):
            answer(request, rejection: rejection, context: context)
        case .success(let plan):
            let rejection = connection.services.validator.validateBody(request.body.readableBytesView, plan: plan)
            answer(request, rejection: rejection, context: context)
        }
    }

    private func answerOversized(_ request: Request, clientStillSending: Bool, context: ChannelHandlerContext) {
        let rejection: Rejection
        switch request.verdict {
        case .failure(let headerRejection): rejection = headerRejection
        case .success(let plan): rejection = connection.services.validator.oversizedBody(plan: plan)
        }
        let answered = answer(request, rejection: rejection, context: context)
        guard clientStillSending else { return }
        // Stop the rest of the body (RFC 9113 §8.1: a complete response, then RST_STREAM NO_ERROR). The reset
        // waits for the answer's write: a reset discards DATA still queued behind flow control.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        answered.whenComplete { _ in
            let (handler, context) = loopBound.value
            context.writeAndFlush(handler.wrapOutboundOut(.rstStream(.noError)), promise: nil)
        }
    }

    // MARK: - Answer

    /// Writes the response; the future completes when its last frame is written.
    @discardableResult
    private func answer(_ request: Request, rejection: Rejection?, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        state = .answered
        let apnsID = request.head["apns-id"] ?? UUID().uuidString
        record(request, apnsID: apnsID, rejection: rejection)
        if let rejection {
            var headers = HPACKHeaders()
            headers.add(name: ":status", value: String(rejection.reason.status))
            headers.add(name: "content-type", value: "application/json")
            headers.add(name: "apns-id", value: apnsID)
            context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
            let body = context.channel.allocator.buffer(string: rejection.responseBody)
            return context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))))
        } else {
            var headers = HPACKHeaders()
            headers.add(name: ":status", value: "200")
            headers.add(name: "apns-id", value: apnsID)
            if connection.environment == .development {
                // Development only, lower case, as in Apple's traces (reference §4.1).
                headers.add(name: "apns-unique-id", value: UUID().uuidString.lowercased())
            }
            return context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))))
        }
    }

    private func record(_ request: Request, apnsID: String, rejection: Rejection?) {
        let plan = try? request.verdict.get()
        var headers: [String: String] = [:]
        for (name, value) in request.head.headers where headers[name] == nil {
            headers[name] = name == "authorization" ? Self.redacted(value) : value
        }
        let tokenText = plan?.token.hex ?? PushValidator.tokenText(inPath: request.head.path).map { $0.lowercased() }
        let elapsed = NIODeadline.now() - request.started
        connection.services.recorder.record(SendRecord(
            receivedAt: request.receivedAt,
            environment: connection.environment.rawValue,
            authMode: connection.auth.modeName,
            method: request.head.method,
            path: request.head.path,
            token: tokenText,
            topic: plan?.topic ?? request.head["apns-topic"],
            pushType: plan?.pushType.rawValue ?? request.head["apns-push-type"],
            apnsID: apnsID,
            headers: headers,
            payload: request.body.getString(at: request.body.readerIndex, length: request.body.readableBytes),
            payloadBytes: request.bodyBytes,
            status: rejection?.reason.status ?? 200,
            reason: rejection?.reason.rawValue,
            explanation: rejection?.explanation,
            durationMicros: Int(elapsed.nanoseconds / 1000),
            teamID: request.grant?.teamID,
            keyID: request.grant?.keyID
        ))
    }

    /// Keeps a JWT's header and claims (useful when debugging) and drops its signature.
    private static func redacted(_ authorization: String) -> String {
        guard let lastDot = authorization.lastIndex(of: ".") else { return authorization }
        return authorization[..<lastDot] + ".<signature>"
    }
}
