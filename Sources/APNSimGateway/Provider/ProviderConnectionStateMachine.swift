import APNSimRules
import NIOCore
import NIOHTTP2

/// Everything one provider connection decides, as one value, in the style of NIOHTTP2's own state machines: it takes
/// what happened (frames, faults, timers, commits, errors) and returns what to do (process or refuse a stream,
/// write a GOAWAY or SETTINGS, close). It does no I/O; ``ProviderConnectionHandler`` carries out its actions, and
/// tests drive it with plain values.
///
/// The connection is open, then draining after a GOAWAY (streams above its last stream are refused, and the
/// connection closes once nothing is in flight), then closed. One GOAWAY at most: whichever comes first of a
/// fault, idleness, shutdown or a certificate of the wrong environment decides the last stream.
struct ProviderConnectionStateMachine {
    /// A GOAWAY to write, with APNs' JSON debug data `{"reason":"…"}` (Apple, "Establishing a connection to APNs").
    struct GoAway: Equatable {
        var lastStreamID: HTTP2StreamID
        var reason: String
        var errorCode: HTTP2ErrorCode = .noError
        /// The fault that asked for it, to be recorded; `nil` for the gateway's own (idle, shutdown, environment).
        var fault: Fault?
        /// Whether the streams up to ``lastStreamID`` are answered before the connection closes (a fault, shutdown),
        /// or the connection closes once the GOAWAY is written (idle, environment: nothing is in flight to answer).
        var drains: Bool
    }

    enum Phase: Equatable {
        case open
        /// A GOAWAY was sent: streams above its last stream are not processed (recorded as refused, because of its
        /// fault if a fault sent it).
        case goingAway(GoAway)
        /// A `hang` at `silence`: the gateway reads and writes nothing more, and does not close, until the client
        /// does (or the gateway shuts down).
        case silent
        case closed
    }

    /// What to do with a HEADERS frame.
    enum HeadersAction: Equatable {
        /// Validate the push and call ``streamOpened(_:exchange:endStream:)``.
        case process
        /// Write the GOAWAY, then process the stream (a `goAway` fault whose last stream includes this one).
        case goAwayThenProcess(GoAway)
        /// Record the push as not processed: it is above the GOAWAY's last stream; then do `then`.
        case refuse(lastStreamID: HTTP2StreamID, fault: Fault?, then: AfterRefusal)
        /// Trailers, or HEADERS on a stream already done with: nothing apnsim reads.
        case ignore
        /// A `hang` at `silence` fell due on this push: record it as not processed, then go silent.
        case silence(Fault)
        /// A `hang` at `window` fell due on this push: hold the window at zero, then process the stream.
        case holdWindowThenProcess(Fault)
        /// The client has `limit` streams open already, all it was allowed: reset this one with REFUSED_STREAM and
        /// record its request as not processed.
        case refuseOverLimit(limit: Int)
    }

    enum AfterRefusal: Equatable {
        case nothing
        /// The refused stream was the one a `goAway` fault fell due on, and it carried no body.
        case goAway(GoAway)
        /// A `drop` fault fell due on this stream: close without a word.
        case drop(Fault)
    }

    /// What to do with a DATA frame.
    enum DataAction {
        case none
        /// The body is complete: answer the push.
        case finish(PushExchange)
        /// The body crossed its limit: answer now and, if the client is still sending, reset the stream.
        case answerEarly(PushExchange, clientStillSending: Bool)
        /// The refused stream a `goAway` fault fell due on has ended: now the GOAWAY can go (sent earlier, NIOHTTP2
        /// would drop that stream and take the rest of its body as a protocol error).
        case goAway(GoAway)
    }

    /// What to do about the whole connection.
    enum ConnectionAction: Equatable {
        case none
        case goAway(GoAway)
        /// Close at once, recording the fault that asked for it if one did.
        case close(dropped: Fault?)
        /// Write SETTINGS MAX_CONCURRENT_STREAMS, recording the fault.
        case settings(maxConcurrentStreams: Int, fault: Fault)
        /// A `hang` at `window`: write SETTINGS_INITIAL_WINDOW_SIZE 0, recording the fault.
        case holdWindow(Fault)
        /// A `hang` at `silence`: stop reading and writing without closing, recording the fault.
        case silence(Fault)
    }

    private(set) var phase = Phase.open
    /// The highest stream processed, for GOAWAY's last-stream-id.
    private(set) var lastStreamID = HTTP2StreamID.rootStream
    /// The streams the client may open at once, and those it has.
    var allowance = StreamAllowance()
    /// Streams whose body is still arriving.
    private var streams: [HTTP2StreamID: PushExchange] = [:]
    /// A fault's GOAWAY waiting for the end of the refused stream that triggered it.
    private var pendingGoAway: (goAway: GoAway, after: HTTP2StreamID)?
    /// Answers a `latency` fault is holding back.
    private var heldAnswers = 0
    /// 200s of the current read batch, waiting to be handed to the store's commit (store files only).
    private var answersInBatch = 0
    /// Batches of 200s handed to the store and not yet written.
    private var batchesAwaitingCommit = 0

    /// Streams with their body still arriving (for tests and logs).
    var openStreams: Int { streams.count }

    // MARK: - Opening

    /// A certificate-authenticated connection whose certificate is not for the endpoint's environment. Observed from
    /// APNs: GOAWAY, last stream 0, NO_ERROR, `{"reason":"BadCertificateEnvironment"}`, then close.
    mutating func connectionStarted(certificateMatchesEnvironment: Bool) -> ConnectionAction {
        guard !certificateMatchesEnvironment else { return .none }
        return startGoAway(GoAway(lastStreamID: .rootStream, reason: RejectionReason.badCertificateEnvironment.rawValue, drains: false))
    }

    // MARK: - Frames

    /// A HEADERS frame. `dueFault` takes the `goAway` or `drop` fault falling due on this push, if one is; it is
    /// asked only while the connection is open (a fault falls due on a push the gateway would process).
    mutating func headersReceived(streamID: HTTP2StreamID, endStream: Bool, dueFault: () -> Fault?) -> HeadersAction {
        guard streamID > lastStreamID else { return .ignore }
        switch phase {
        case .closed:
            return .ignore
        case .goingAway(let goAway):
            guard streamID <= goAway.lastStreamID else {
                return .refuse(lastStreamID: goAway.lastStreamID, fault: goAway.fault, then: .nothing)
            }
            if let limit = allowance.take(streamID) { return .refuseOverLimit(limit: limit) }
            return .process
        case .silent:
            return .ignore
        case .open:
            break
        }
        // Over the limit, a stream is refused before any fault can fall due on it: it was never the gateway's to process.
        if let limit = allowance.take(streamID) { return .refuseOverLimit(limit: limit) }
        guard let fault = dueFault() else { return .process }
        switch fault.at {
        case .hang(.silence)?:
            phase = .silent
            return .silence(fault)
        case .hang(.window)?:
            return .holdWindowThenProcess(fault)
        default:
            break
        }
        if fault.resolvedKind == .drop {
            phase = .closed
            return .refuse(lastStreamID: lastStreamID, fault: fault, then: .drop(fault))
        }
        let last = fault.lastStreamId.map { HTTP2StreamID($0) } ?? lastStreamID
        let goAway = GoAway(lastStreamID: last, reason: fault.reason ?? "Shutdown",
                            errorCode: HTTP2ErrorCode(networkCode: fault.errorCode ?? 0), fault: fault, drains: true)
        phase = .goingAway(goAway)
        guard streamID > last else { return .goAwayThenProcess(goAway) }
        if endStream { return .refuse(lastStreamID: last, fault: fault, then: .goAway(goAway)) }
        pendingGoAway = (goAway, streamID)
        return .refuse(lastStreamID: last, fault: fault, then: .nothing)
    }

    /// The push on `streamID` was validated: keep it while its body arrives. Returns it when HEADERS ended the
    /// stream (it has no body to wait for).
    mutating func streamOpened(_ streamID: HTTP2StreamID, exchange: PushExchange, endStream: Bool) -> PushExchange? {
        if streamID > lastStreamID { lastStreamID = streamID }
        guard !endStream else { return exchange }
        streams[streamID] = exchange
        return nil
    }

    /// A DATA frame's bytes.
    mutating func dataReceived(streamID: HTTP2StreamID, chunk: ByteBuffer?, endStream: Bool) -> DataAction {
        if let pending = pendingGoAway, pending.after == streamID {
            guard endStream else { return .none }
            pendingGoAway = nil
            return .goAway(pending.goAway)
        }
        // No stream: a push answered early whose body is still arriving, until the reset lands.
        guard var exchange = streams.removeValue(forKey: streamID) else { return .none }
        if let chunk { exchange.receive(chunk) }
        if exchange.isOversized { return .answerEarly(exchange, clientStillSending: !endStream) }
        if endStream { return .finish(exchange) }
        streams[streamID] = exchange
        return .none
    }

    /// The client reset the stream, or NIOHTTP2 closed it.
    mutating func streamClosed(_ streamID: HTTP2StreamID) {
        streams[streamID] = nil
        allowance.closed(streamID)
    }

    // MARK: - Answers in flight

    /// A `latency` fault holds an answer back.
    mutating func answerHeld() {
        heldAnswers += 1
    }

    /// A held answer was written (or handed to the store); the end of its batch checks for a drained connection.
    mutating func heldAnswerReleased() {
        heldAnswers -= 1
    }

    /// A 200 waits for the store to commit the push (store files only).
    mutating func answerAwaitsCommit() {
        answersInBatch += 1
    }

    /// The frames of one read are done. Returns whether to hand the batch's 200s to the store's commit, and what to
    /// do about the connection.
    mutating func readBatchEnded() -> (handToStore: Bool, connection: ConnectionAction) {
        let handToStore = answersInBatch > 0
        if handToStore {
            answersInBatch = 0
            batchesAwaitingCommit += 1
        }
        return (handToStore, closeIfDrained())
    }

    /// The store committed a batch; its 200s are written.
    mutating func batchCommitted() -> ConnectionAction {
        batchesAwaitingCommit -= 1
        return closeIfDrained()
    }

    // MARK: - The connection

    /// The client sent nothing for the idle timeout: GOAWAY `IdleTimeout`, then close.
    mutating func idleTimeout() -> ConnectionAction {
        startGoAway(GoAway(lastStreamID: lastStreamID, reason: RejectionReason.idleTimeout.rawValue, drains: false))
    }

    /// The gateway is shutting down: GOAWAY `Shutdown`, answer what is in flight, then close. A silent connection
    /// is closed at once: it has nothing to say.
    mutating func shutdownRequested() -> ConnectionAction {
        if phase == .silent {
            phase = .closed
            return .close(dropped: nil)
        }
        return startGoAway(GoAway(lastStreamID: lastStreamID, reason: RejectionReason.shutdown.rawValue, drains: true))
    }

    /// A fault added for every open connection (`POST /v1/faults` with no `after` or `at`).
    mutating func faultInjected(_ fault: Fault) -> ConnectionAction {
        switch fault.resolvedKind {
        case .goAway:
            let last = fault.lastStreamId.map { HTTP2StreamID($0) } ?? lastStreamID
            return startGoAway(GoAway(lastStreamID: last, reason: fault.reason ?? "Shutdown",
                                      errorCode: HTTP2ErrorCode(networkCode: fault.errorCode ?? 0), fault: fault, drains: true))
        case .drop:
            guard phase != .closed else { return .none }
            phase = .closed
            return .close(dropped: fault)
        case .settings:
            guard phase != .closed, phase != .silent, let streams = fault.maxConcurrentStreams else { return .none }
            return .settings(maxConcurrentStreams: streams, fault: fault)
        case .hang:
            guard phase != .closed, phase != .silent else { return .none }
            switch fault.at {
            case .hang(.window)?:
                return .holdWindow(fault)
            case .hang(.silence)?:
                phase = .silent
                return .silence(fault)
            default:
                return .none
            }
        default:
            return .none
        }
    }

    /// NIOHTTP2 wrote a GOAWAY for a protocol error: nothing more can be read (RFC 9113 §5.4.1).
    mutating func connectionErrorSent() -> ConnectionAction {
        guard phase != .closed else { return .none }
        phase = .closed
        return .close(dropped: nil)
    }

    /// The drain after a GOAWAY took longer than the grace the policy allows.
    mutating func drainGraceExpired() -> ConnectionAction {
        guard case .goingAway = phase else { return .none }
        phase = .closed
        return .close(dropped: nil)
    }

    /// A GOAWAY has been written: close if it does not drain, or if it does and nothing is in flight.
    mutating func goAwayWritten(_ goAway: GoAway) -> ConnectionAction {
        guard !goAway.drains else { return closeIfDrained() }
        guard phase != .closed else { return .none }
        phase = .closed
        return .close(dropped: nil)
    }

    private mutating func startGoAway(_ goAway: GoAway) -> ConnectionAction {
        guard phase == .open else { return .none }
        phase = .goingAway(goAway)
        return .goAway(goAway)
    }

    /// After a GOAWAY, closes once every push in flight has its answer written.
    private mutating func closeIfDrained() -> ConnectionAction {
        guard case .goingAway(let goAway) = phase, goAway.drains, streams.isEmpty, pendingGoAway == nil, heldAnswers == 0, answersInBatch == 0,
              batchesAwaitingCommit == 0 else { return .none }
        phase = .closed
        return .close(dropped: nil)
    }
}
