import Foundation

extension LiveActivity {
    /// An activity read by hand from the JSON object `Codable` writes for it (`JSONEncoder`'s defaults: dates as
    /// seconds since 2001, tokens as hex), as `JSONDecoder` would read it; `nil` where `JSONDecoder` would throw. The
    /// gateway reads one in every Live Activity receipt: `JSONDecoder` there was a seventh of its time in
    /// `Benchmarks/broadcast.sh` profiles.
    public init?(json object: [String: JSONValue]) {
        func date(_ key: String) -> Date?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .number(let seconds)?: return .some(Date(timeIntervalSinceReferenceDate: seconds))
            default: return nil
            }
        }
        func text(_ key: String) -> String?? {
            switch object[key] {
            case nil, .null?: return .some(nil)
            case .string(let text)?: return .some(text)
            default: return nil
            }
        }
        guard case .string(let id)? = object["id"], case .string(let bundleID)? = object["bundleID"],
              case .string(let attributesType)? = object["attributesType"], case .object(let attributes)? = object["attributes"],
              case .object(let contentState)? = object["contentState"], case .number(let started)? = object["startedAt"],
              let token = text("pushToken"), let channelID = text("channelID"), let timestamp = date("timestamp"),
              let staleDate = date("staleDate"), let endedAt = date("endedAt"), let dismissalDate = date("dismissalDate") else { return nil }
        var pushToken: DeviceToken?
        if let token {
            guard let parsed = DeviceToken(token) else { return nil }
            pushToken = parsed
        }
        let relevanceScore: Double?
        switch object["relevanceScore"] {
        case nil, .null?: relevanceScore = nil
        case .number(let score)?: relevanceScore = score
        default: return nil
        }
        self.init(id: id, bundleID: bundleID, attributesType: attributesType, attributes: attributes, contentState: contentState,
                  startedAt: Date(timeIntervalSinceReferenceDate: started), pushToken: pushToken, timestamp: timestamp,
                  staleDate: staleDate, relevanceScore: relevanceScore, channelID: channelID)
        self.endedAt = endedAt
        self.dismissalDate = dismissalDate
    }
}
