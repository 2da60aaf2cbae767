import Foundation

/// One injected failure, as `POST /v1/faults` and a scenario's `fault:` step take it (docs/faults.md). Each kind
/// is a state a provider cannot cause with a request but must survive, most of them seen from APNs in production:
///
/// - `reject` (the default): answer pushes with an error status and reason (`ServiceUnavailable`, 503); with
///   `seconds`, every matching push within that window from now.
/// - `tooManyRequests`: pushes to one token faster than `perSecond` (over the last ten seconds) get 429
///   `TooManyRequests`.
/// - `latency`: answers wait `latencyMs` (or a time drawn evenly from `latencyMs`…`latencyMaxMs`, seeded).
/// - `reset`: a push's stream is reset (RST_STREAM `errorCode`, 2 INTERNAL_ERROR unless given) instead of answered;
///   with `streamIds`, only those streams.
/// - `goAway`: the connection gets GOAWAY with `reason` (`{"reason":"…"}`) and `lastStreamId`; now, or on the
///   push that comes `after` N more pushes, or at `at`. Streams above last-stream-id are not processed.
/// - `drop`: the connection is closed without a word, at the same moments.
/// - `settings`: connections get SETTINGS MAX_CONCURRENT_STREAMS `maxConcurrentStreams` (Apple lowers it to 1
///   after some errors); new connections start with it while the fault lasts.
/// - `deviceLink`: the device link of `device` drops (`drop: true`) or delivers `latencyMs` late.
/// - `clockSkew`: the gateway's clock for provider-token checks runs `skewSeconds` ahead (negative: behind).
/// - `hang`: the gateway stops, where `at` says (``HangPoint``), as APNs has been seen to and provider libraries
///   have hung on: a TLS handshake never finished, a stream never answered, a flow-control window held at zero, a
///   connection gone quiet without a FIN.
public struct Fault: Codable, Sendable, Hashable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case reject, tooManyRequests, latency, reset, goAway, drop, settings, deviceLink, clockSkew, hang
    }

    /// Given by the gateway when the fault is added (`f1`, `f2`…); it names the fault in the records it touches.
    public var id: String?
    public var kind: Kind?
    /// When it was added, by the gateway's clock.
    public var addedAt: Date?

    /// Only pushes to this device token.
    public var token: String?
    /// Only pushes and connections on this environment's endpoint.
    public var environment: APNsEnvironment?
    /// How many pushes (`reject`, `reset`, `latency`, `hang` at `response`) or connections (`goAway`, `drop`,
    /// `hang` at `handshake`) it takes; `reject`, `reset` and `hang` take 1 unless a count or `seconds` is given,
    /// `goAway` and `drop` every connection open at the moment.
    public var count: Int?
    /// How long it lasts from when it is added; without it, until it is used up or cleared.
    public var seconds: Double?

    /// `reject`: Apple's reason string (its status comes from Apple's table unless `status` is given).
    /// `goAway`: the reason in GOAWAY's debug data (`Shutdown` unless given).
    public var reason: String?
    public var status: Int?

    /// `goAway`, `drop`, `hang` at `window` or `silence`: on the push that comes after this many more pushes (on
    /// any connection it matches).
    public var after: Int?
    /// `goAway`, `drop`: at this time (by the gateway's clock; checked when the next push comes, and by a timer).
    /// `hang`: where the gateway stops.
    public var at: FaultMoment?
    /// `goAway`: the last stream the gateway will process; the last one it answered unless given.
    public var lastStreamId: Int?
    /// `goAway`: its error code (0 NO_ERROR unless given); `reset`: RST_STREAM's (2 INTERNAL_ERROR unless given).
    public var errorCode: Int?
    /// `reset`: only the streams with these IDs (on whichever connection carries them).
    public var streamIds: [Int]?

    /// `latency`, `deviceLink`: milliseconds; with `latencyMaxMs`, a time drawn evenly between the two.
    public var latencyMs: Int?
    public var latencyMaxMs: Int?
    /// `latency`: the seed of the draws, so a replay waits the same times every run (1 unless given).
    public var seed: UInt64?
    /// `tooManyRequests`: pushes per second to one token above which it answers 429.
    public var perSecond: Double?
    /// `settings`: MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: Int?
    /// `deviceLink`: which device, and whether its link drops.
    public var device: String?
    public var drop: Bool?
    /// `clockSkew`: seconds added to the gateway's clock when it checks provider tokens.
    public var skewSeconds: Double?

    public init(kind: Kind = .reject, reason: String? = nil, status: Int? = nil, count: Int? = nil, token: String? = nil,
                environment: APNsEnvironment? = nil) {
        self.kind = kind
        self.reason = reason
        self.status = status
        self.count = count
        self.token = token
        self.environment = environment
    }

    public var resolvedKind: Kind { kind ?? .reject }
}

extension Fault {
    /// A sentence saying why the fault cannot be used, or `nil` when it can.
    public func problem() -> String? {
        if let count, count < 1 { return "count must be at least 1; got \(count)" }
        if let seconds, !(seconds.isFinite && seconds > 0 && seconds <= 86_400) { return "seconds must be from 0 to 86400; got \(seconds)" }
        if let token, DeviceToken(token) == nil { return "token \(token) is not a device token" }
        if let latencyMs, !(0...600_000).contains(latencyMs) { return "latencyMs must be from 0 to 600000; got \(latencyMs)" }
        if let latencyMaxMs, latencyMaxMs < (latencyMs ?? 0) || latencyMaxMs > 600_000 {
            return "latencyMaxMs must be from latencyMs to 600000; got \(latencyMaxMs)"
        }
        switch resolvedKind {
        case .reject:
            guard let reason else { return "a reject fault needs a reason, such as ServiceUnavailable" }
            let known = RejectionReason.all.first { $0.rawValue == reason }
            guard let status = status ?? known?.status else {
                return "reason \(reason) is not in Apple's table; give its status too, or use one of \(RejectionReason.all.map(\.rawValue).joined(separator: ", "))"
            }
            guard (400...599).contains(status) else { return "status \(status) is not an error status (400-599)" }
        case .tooManyRequests:
            guard let perSecond, perSecond.isFinite, perSecond > 0 else { return "a tooManyRequests fault needs perSecond, a rate above 0" }
        case .latency:
            guard latencyMs != nil else { return "a latency fault needs latencyMs" }
        case .reset:
            if let errorCode, !(0...0xd).contains(errorCode) { return "errorCode must be an HTTP/2 error code, 0 to 13; got \(errorCode)" }
            if let bad = streamIds?.first(where: { $0 < 1 || $0 % 2 == 0 }) {
                return "streamIds are the odd stream IDs clients open; got \(bad)"
            }
        case .goAway, .drop:
            if case .hang(let point)? = at { return "at: \(point.rawValue) is for a hang fault; a \(resolvedKind.rawValue) fault takes a time" }
            if let after, after < 0 { return "after must be 0 or more; got \(after)" }
            if let lastStreamId, lastStreamId < 0 || lastStreamId % 2 == 0 && lastStreamId != 0 {
                return "lastStreamId must be 0 or an odd stream ID (clients open odd streams); got \(lastStreamId)"
            }
            if let errorCode, !(0...0xd).contains(errorCode) { return "errorCode must be an HTTP/2 error code, 0 to 13; got \(errorCode)" }
        case .settings:
            guard let streams = maxConcurrentStreams, (0...Int(Int32.max)).contains(streams) else {
                return "a settings fault needs maxConcurrentStreams, 0 or more"
            }
        case .deviceLink:
            guard device != nil else { return "a deviceLink fault needs the device it affects" }
            guard drop == true || latencyMs != nil else { return "a deviceLink fault needs drop: true or latencyMs" }
        case .hang:
            guard case .hang(let point)? = at else {
                return "a hang fault needs at: one of \(HangPoint.allCases.map(\.rawValue).joined(separator: ", "))"
            }
            if let after, after < 0 { return "after must be 0 or more; got \(after)" }
            if after != nil, point == .handshake || point == .response {
                return "after is for a hang at window or silence, which act on a connection; a hang at \(point.rawValue) takes count"
            }
            if count != nil, point == .window || point == .silence {
                return "count is for a hang at handshake or response; a hang at \(point.rawValue) acts on every open connection, or with after on one"
            }
        case .clockSkew:
            guard let skewSeconds, skewSeconds.isFinite, abs(skewSeconds) <= 86_400 * 365 else {
                return "a clockSkew fault needs skewSeconds, within a year either way"
            }
        }
        return nil
    }

    /// What a provider sees of it, for the records it touches (`f2 goAway Shutdown after 2`).
    public var summary: String {
        var parts = [id ?? "f?", resolvedKind.rawValue]
        if case .hang(let point)? = at { parts.append("at \(point.rawValue)") }
        if let reason { parts.append(reason) }
        if let status { parts.append(String(status)) }
        if let after { parts.append("after \(after)") }
        if let latencyMs { parts.append("\(latencyMs)\(latencyMaxMs.map { "-\($0)" } ?? "") ms") }
        if let perSecond { parts.append("\(perSecond)/s") }
        if let maxConcurrentStreams { parts.append("max streams \(maxConcurrentStreams)") }
        if let skewSeconds { parts.append("skew \(skewSeconds) s") }
        return parts.joined(separator: " ")
    }
}

/// Where a `hang` fault stops the gateway (docs/faults.md).
public enum HangPoint: String, Codable, Sendable, CaseIterable {
    /// A connection is accepted and its TLS handshake never completes: the ClientHello is read and never answered.
    case handshake
    /// A push's stream is never answered (and the push is not processed).
    case response
    /// The gateway stops granting flow-control window: SETTINGS_INITIAL_WINDOW_SIZE 0, so no stream may send a body.
    case window
    /// The connection goes quiet without a FIN: nothing is read, nothing written, PINGs unanswered.
    case silence
}

/// A fault's `at`: a time (`goAway`, `drop`) or where a `hang` stops the gateway (`handshake`, `response`…).
public enum FaultMoment: Codable, Sendable, Hashable {
    case time(Date)
    case hang(HangPoint)

    public var time: Date? { if case .time(let date) = self { date } else { nil } }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self), let point = HangPoint(rawValue: word) {
            self = .hang(point)
            return
        }
        do {
            self = .time(try container.decode(Date.self))
        } catch {
            let found = (try? container.decode(String.self)) ?? "another value"
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                "expected an RFC 3339 time such as 2026-11-23T12:00:00Z, or for a hang fault one of \(HangPoint.allCases.map(\.rawValue).joined(separator: ", ")); found \(found)"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .time(let date): try container.encode(date)
        case .hang(let point): try container.encode(point.rawValue)
        }
    }
}
