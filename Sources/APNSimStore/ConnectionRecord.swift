import Foundation

/// A provider connection the gateway refused or closed (`GET /v1/connections`, docs/records.md): a TLS handshake that
/// failed, a client that never spoke HTTP/2, a certificate for the other environment, a GOAWAY (idle, shutdown, a
/// fault, a protocol error), a connection dropped. A client's library reports most of these vaguely (aioapns retries,
/// then raises `MaxAttemptsExceeded`), and none of them is a request, so `/v1/sends` cannot show them: this does.
/// Connections the client closes itself are not recorded.
public struct ConnectionRecord: Sendable, Hashable, Codable {
    /// What the gateway did to the connection.
    public enum Event: String, Sendable, Hashable, Codable, CaseIterable {
        /// The TLS handshake failed: the client refused the gateway's certificate (``ConnectionRecord/tlsAlert`` says
        /// with which alert), or sent something that is not TLS.
        case tlsHandshakeFailed
        /// TLS and the HTTP/2 preface were not done within the handshake timeout.
        case handshakeTimedOut
        /// The client spoke something other than HTTP/2 (answered `505` with `HTTP2Required`).
        case notHTTP2
        /// The client certificate is not one the gateway takes: every request on the connection is answered
        /// `403 BadCertificate` (Apple answers per request too), and the record says why once.
        case badCertificate
        /// The gateway sent GOAWAY (``ConnectionRecord/reason``: `BadCertificateEnvironment`, `IdleTimeout`,
        /// `Shutdown`, a fault's reason, or a protocol error's code) and closed the connection.
        case goAway
        /// The gateway closed the connection without a word: a `drop` fault, or an I/O error.
        case dropped
    }

    public var id: String
    public var at: Date
    public var event: Event
    /// The endpoint's environment: `development` or `production`.
    public var environment: String
    /// Which API the port serves: `provider` (pushes, broadcasts) or `management` (broadcast channels).
    public var api: String
    /// The client's address and port.
    public var peer: String
    /// APNs' reason, as the GOAWAY's `{"reason"}` or the answer's body gives it.
    public var reason: String?
    /// The GOAWAY's HTTP/2 error code (`NO_ERROR` for APNs' own, `PROTOCOL_ERROR` and the like for a protocol error).
    public var errorCode: String?
    /// The GOAWAY's last stream: the highest the gateway processed; the client may retry those above it.
    public var lastStreamID: Int?
    /// The TLS alert of a failed handshake, as the TLS library names it (`unknown_ca`, `certificate_unknown`,
    /// `handshake_failure`), when the error names one.
    public var tlsAlert: String?
    /// How the connection authenticated: `token` or `certificate`; `nil` before TLS was done.
    public var authMode: String?
    /// The client certificate's subject, when one was presented.
    public var certificateSubject: String?
    /// The injected fault that did it (`POST /v1/faults`), as send records name one: `f2 goAway Shutdown`.
    public var fault: String?
    /// What happened and what to do about it, in a sentence or two.
    public var explanation: String

    public init(id: String = UUID().uuidString, at: Date, event: Event, environment: String, api: String, peer: String,
                reason: String? = nil, errorCode: String? = nil, lastStreamID: Int? = nil, tlsAlert: String? = nil,
                authMode: String? = nil, certificateSubject: String? = nil, fault: String? = nil, explanation: String) {
        self.id = id
        self.at = at
        self.event = event
        self.environment = environment
        self.api = api
        self.peer = peer
        self.reason = reason
        self.errorCode = errorCode
        self.lastStreamID = lastStreamID
        self.tlsAlert = tlsAlert
        self.authMode = authMode
        self.certificateSubject = certificateSubject
        self.fault = fault
        self.explanation = explanation
    }

    enum CodingKeys: String, CodingKey {
        case id, at, event, environment, api, peer, reason, errorCode, lastStreamID = "lastStreamId", tlsAlert, authMode,
             certificateSubject, fault, explanation
    }
}

/// Which connection records to read (`GET /v1/connections`), oldest first unless ``newestFirst``.
public struct ConnectionFilter: Sendable, Hashable {
    public var event: ConnectionRecord.Event?
    public var reason: String?
    public var environment: String?
    /// Only records after this time, and before this one.
    public var after: Date?
    public var before: Date?
    /// Only the records after the one with this ID (before it, newest first): the last of the page before. An ID the
    /// record does not hold matches nothing.
    public var cursor: String?
    /// Newest first (the inbox's sends log shows the latest).
    public var newestFirst = false
    public var limit: Int

    public init(event: ConnectionRecord.Event? = nil, reason: String? = nil, environment: String? = nil, after: Date? = nil,
                before: Date? = nil, cursor: String? = nil, limit: Int = 100) {
        self.event = event
        self.reason = reason
        self.environment = environment
        self.after = after
        self.before = before
        self.cursor = cursor
        self.limit = limit
    }
}
