import APNSimRules
import Foundation

/// A ``SendRecord`` in JSON, as the control API answers `GET /v1/sends`: the `apns-id` is `apnsId`, as delivery records
/// and every query name it, and the JWT's team is `team`, as world files and apps name a team. Until the next release
/// the record also carries them as `apnsID` and `teamID`, their spellings before 2026-11-29 (README, "Changelog"), and
/// the answer says so with a `Deprecation` header; reading takes either.
extension SendRecord {
    enum CodingKeys: String, CodingKey {
        case id, receivedAt, environment, authMode, method, path, token, topic, pushType, apnsID = "apnsId", headers, payload
        case payloadBytes, status, reason, explanation, durationMicros, team, keyID, fault, uniqueID = "uniqueId"
        /// The old spellings of `apnsId` and `team`, written beside them for one release.
        case deprecatedApnsID = "apnsID", deprecatedTeamID = "teamID"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(Int64.self, forKey: .id)
        receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        environment = try container.decode(String.self, forKey: .environment)
        authMode = try container.decode(String.self, forKey: .authMode)
        method = try container.decode(String.self, forKey: .method)
        path = try container.decode(String.self, forKey: .path)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        topic = try container.decodeIfPresent(String.self, forKey: .topic)
        pushType = try container.decodeIfPresent(String.self, forKey: .pushType)
        apnsID = try container.decodeIfPresent(String.self, forKey: .apnsID) ?? container.decode(String.self, forKey: .deprecatedApnsID)
        headers = try container.decode(RequestHeaders.self, forKey: .headers)
        payload = try container.decodeIfPresent(String.self, forKey: .payload)
        payloadBytes = try container.decode(Int.self, forKey: .payloadBytes)
        status = try container.decode(Int.self, forKey: .status)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        explanation = try container.decodeIfPresent(String.self, forKey: .explanation)
        durationMicros = try container.decode(Int.self, forKey: .durationMicros)
        teamID = try container.decodeIfPresent(String.self, forKey: .team) ?? container.decodeIfPresent(String.self, forKey: .deprecatedTeamID)
        keyID = try container.decodeIfPresent(String.self, forKey: .keyID)
        fault = try container.decodeIfPresent(String.self, forKey: .fault)
        uniqueID = try container.decodeIfPresent(String.self, forKey: .uniqueID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(id, forKey: .id)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encode(environment, forKey: .environment)
        try container.encode(authMode, forKey: .authMode)
        try container.encode(method, forKey: .method)
        try container.encode(path, forKey: .path)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(topic, forKey: .topic)
        try container.encodeIfPresent(pushType, forKey: .pushType)
        try container.encode(apnsID, forKey: .apnsID)
        try container.encode(apnsID, forKey: .deprecatedApnsID)
        try container.encode(headers, forKey: .headers)
        try container.encodeIfPresent(payload, forKey: .payload)
        try container.encode(payloadBytes, forKey: .payloadBytes)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(explanation, forKey: .explanation)
        try container.encode(durationMicros, forKey: .durationMicros)
        try container.encodeIfPresent(teamID, forKey: .team)
        try container.encodeIfPresent(teamID, forKey: .deprecatedTeamID)
        try container.encodeIfPresent(keyID, forKey: .keyID)
        try container.encodeIfPresent(fault, forKey: .fault)
        try container.encodeIfPresent(uniqueID, forKey: .uniqueID)
    }
}

extension SendRecord {
    /// The record as ``RecordJSON`` keeps it (dates in seconds since 1970), written by hand for a PostgreSQL row, on
    /// every push's path: the keys `encode(to:)` writes, without the old spellings, which reading does not need.
    func recordJSON() -> [UInt8] {
        var json = JSONWriter(capacity: 384 + headers.json.count + (payload?.utf8.count ?? 0) + (explanation?.utf8.count ?? 0))
        json.field("id", id.map(Int.init))
        json.field("receivedAt", receivedAt.timeIntervalSince1970)
        json.field("environment", environment)
        json.field("authMode", authMode)
        json.field("method", method)
        json.field("path", path)
        json.field("token", token)
        json.field("topic", topic)
        json.field("pushType", pushType)
        json.field("apnsId", apnsID)
        json.field("headers", object: headers.json)
        json.field("payload", payload)
        json.field("payloadBytes", payloadBytes)
        json.field("status", status)
        json.field("reason", reason)
        json.field("explanation", explanation)
        json.field("durationMicros", durationMicros)
        json.field("team", teamID)
        json.field("keyID", keyID)
        json.field("fault", fault)
        json.field("uniqueId", uniqueID)
        return json.finish()
    }
}
