import Foundation

extension LiveActivity {
    /// An activity read by hand from the JSON object `Codable` writes for it (`JSONEncoder`'s defaults: dates as
    /// seconds since 2001, tokens as hex), as `JSONDecoder` would read it; `nil` where `JSONDecoder` would throw. The
    /// gateway reads one in every Live Activity receipt: `JSONDecoder` there was a seventh of its time in
    /// `Benchmarks/broadcast.sh` profiles.
    public init?(json object: [String: JSONValue]) {
        guard case .string(let bundleID)? = object["bundleID"], case .string(let attributesType)? = object["attributesType"],
              case .object(let attributes)? = object["attributes"], case .number(let started)? = object["startedAt"],
              let token = object.text("pushToken"), let channelID = object.text("channelID"),
              let progress = Progress(json: object) else { return nil }
        var pushToken: DeviceToken?
        if let token {
            guard let parsed = DeviceToken(token) else { return nil }
            pushToken = parsed
        }
        self.init(id: progress.id, bundleID: bundleID, attributesType: attributesType, attributes: attributes, contentState: [:],
                  startedAt: Date(timeIntervalSinceReferenceDate: started), pushToken: pushToken, channelID: channelID)
        self.progress = progress
    }
}

extension LiveActivity.Progress {
    /// Read by hand from the object `Codable` writes for it (or for a whole activity, of which it reads these fields),
    /// as ``LiveActivity/init(json:)`` reads a whole activity; `nil` where `JSONDecoder` would throw.
    public init?(json object: [String: JSONValue]) {
        guard case .string(let id)? = object["id"], case .object(let contentState)? = object["contentState"],
              let timestamp = object.date("timestamp"), let staleDate = object.date("staleDate"), let endedAt = object.date("endedAt"),
              let dismissalDate = object.date("dismissalDate"), let relevanceScore = object.number("relevanceScore") else { return nil }
        self.id = id
        self.contentState = contentState
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.endedAt = endedAt
        self.dismissalDate = dismissalDate
    }
}

/// An optional member as `JSONDecoder` reads it: `.some(nil)` when absent or null, `nil` when it is of another kind.
private extension [String: JSONValue] {
    /// A date as `JSONEncoder` writes one by default: seconds since 2001.
    func date(_ key: String) -> Date?? {
        number(key).map { $0.map(Date.init(timeIntervalSinceReferenceDate:)) }
    }

    func number(_ key: String) -> Double?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .number(let number)?: return .some(number)
        default: return nil
        }
    }

    func text(_ key: String) -> String?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }
}
