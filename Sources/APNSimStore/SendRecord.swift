import APNSimRules
import Foundation
import GRDB

/// One provider request as the gateway saw and answered it.
public struct SendRecord: Codable, Sendable, Hashable, FetchableRecord, TableRecord {
    public static let databaseTableName = "sends"

    public var id: Int64?
    public var receivedAt: Date
    /// `development` or `production`: the endpoint the request came in on.
    public var environment: String
    /// `token` or `certificate`.
    public var authMode: String
    public var method: String
    public var path: String
    public var token: String?
    public var topic: String?
    public var pushType: String?
    /// The `apns-id` of the response: echoed as sent, or generated.
    public var apnsID: String
    /// Request headers (pseudo-headers included) as a JSON object of name → value; repeated names keep the first.
    public var headers: RequestHeaders
    /// The body as UTF-8 text, at most the payload limit (an oversized body is cut there).
    public var payload: String?
    /// How many body bytes arrived before the gateway answered.
    public var payloadBytes: Int
    public var status: Int
    /// Apple's reason string for rejections; `nil` on 200.
    public var reason: String?
    /// Why, in words; `nil` on 200.
    public var explanation: String?
    /// From the first header byte to the response, in microseconds.
    public var durationMicros: Int
    public var teamID: String?
    public var keyID: String?
    /// The injected fault that decided or delayed this answer (`f2 latency 200 ms`), or, for a record with method
    /// `GOAWAY`, `DROP`, `SETTINGS` or `LINK`, the fault that acted on a connection or device link.
    public var fault: String?
    /// The `apns-unique-id` the gateway answered with (development only, as APNs): what Apple's Push Notifications
    /// Console finds a push by (`GET /v1/sends?uniqueId=…`).
    public var uniqueID: String?

    public init(id: Int64? = nil, receivedAt: Date, environment: String, authMode: String, method: String, path: String,
                token: String?, topic: String?, pushType: String?, apnsID: String, headers: RequestHeaders,
                payload: String?, payloadBytes: Int, status: Int, reason: String?, explanation: String?,
                durationMicros: Int, teamID: String? = nil, keyID: String? = nil, fault: String? = nil, uniqueID: String? = nil) {
        self.id = id
        self.receivedAt = receivedAt
        self.environment = environment
        self.authMode = authMode
        self.method = method
        self.path = path
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.apnsID = apnsID
        self.headers = headers
        self.payload = payload
        self.payloadBytes = payloadBytes
        self.status = status
        self.reason = reason
        self.explanation = explanation
        self.durationMicros = durationMicros
        self.teamID = teamID
        self.keyID = keyID
        self.fault = fault
        self.uniqueID = uniqueID
    }
}

extension SendRecord {
    /// A record of what a fault did outside any one request: a connection's GOAWAY or drop, new SETTINGS, a
    /// device link dropped. Its `method` names the event; its status is 0.
    public static func faultEvent(_ fault: Fault, event: String, at date: Date, environment: String = "", authMode: String = "",
                                  explanation: String) -> SendRecord {
        SendRecord(receivedAt: date, environment: environment, authMode: authMode, method: event, path: "", token: nil, topic: nil,
                   pushType: nil, apnsID: "", headers: [:], payload: nil, payloadBytes: 0, status: 0, reason: fault.reason,
                   explanation: explanation, durationMicros: 0, fault: fault.summary)
    }
}

/// Which sends `Store.sends(matching:)` returns, newest first.
public struct SendFilter: Sendable, Hashable {
    public var token: String?
    /// The `apns-id` the gateway answered with (or the provider sent).
    public var apnsID: String?
    /// The `apns-unique-id` the gateway answered with.
    public var uniqueID: String?
    public var topic: String?
    public var status: Int?
    /// Only sends received after this time.
    public var after: Date?
    /// Only sends received before this time.
    public var before: Date?
    /// Only sends received at or after this time: `GET /v1/sends?since=`, the old spelling of `after=`, which it took
    /// at or after (README, "Changelog").
    public var since: Date?
    public var limit: Int

    public init(token: String? = nil, apnsID: String? = nil, topic: String? = nil, status: Int? = nil, after: Date? = nil,
                before: Date? = nil, since: Date? = nil, limit: Int = 100) {
        self.token = token
        self.apnsID = apnsID
        self.topic = topic
        self.status = status
        self.after = after
        self.before = before
        self.since = since
        self.limit = limit
    }
}
