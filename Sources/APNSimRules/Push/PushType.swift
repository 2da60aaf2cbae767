/// An `apns-push-type` value and the rules that come with it (Apple, "Sending notification requests to APNs").
public struct PushType: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    /// What `apns-topic` must end with for this type (`""` for the bare bundle ID).
    public var topicSuffix: String
    /// Largest body in bytes (Apple, "Generating a remote notification": 4096, VoIP 5120).
    public var payloadLimit: Int
    /// Certificate auth may not send this type (Apple, "Establishing a certificate-based connection to APNs": location
    /// and Live Activity are token-only).
    public var tokenAuthOnly: Bool

    public init(_ rawValue: String, topicSuffix: String, payloadLimit: Int = 4096, tokenAuthOnly: Bool = false) {
        self.rawValue = rawValue
        self.topicSuffix = topicSuffix
        self.payloadLimit = payloadLimit
        self.tokenAuthOnly = tokenAuthOnly
    }

    public var description: String { rawValue }

    public static let alert = Self("alert", topicSuffix: "")
    public static let background = Self("background", topicSuffix: "")
    public static let voip = Self("voip", topicSuffix: ".voip", payloadLimit: 5120)
    public static let complication = Self("complication", topicSuffix: ".complication")
    public static let fileprovider = Self("fileprovider", topicSuffix: ".pushkit.fileprovider")
    /// MDM topics are the UID of the MDM certificate, not a bundle ID plus suffix; apnsim checks no suffix for it.
    public static let mdm = Self("mdm", topicSuffix: "")
    public static let location = Self("location", topicSuffix: ".location-query", tokenAuthOnly: true)
    /// Reference §8 q13: the device Live Activity limit is assumed to be 4096, like alerts.
    public static let liveactivity = Self("liveactivity", topicSuffix: ".push-type.liveactivity", tokenAuthOnly: true)
    public static let pushtotalk = Self("pushtotalk", topicSuffix: ".voip-ptt")
    /// WidgetKit push (iOS 26; Apple, "Updating widgets with WidgetKit push notifications",
    /// https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    public static let widgets = Self("widgets", topicSuffix: ".push-type.widgets")
    /// A control's reload (iOS 18; Apple, "Updating controls locally and remotely",
    /// https://developer.apple.com/documentation/widgetkit/updating-controls-locally-and-remotely): sent to one
    /// control's push token, its topic the bundle ID with `.push-type.controls`, its payload `{"aps":{"content-changed":true}}`.
    public static let controls = Self("controls", topicSuffix: ".push-type.controls")

    public static let all: [PushType] = [
        .alert, .background, .voip, .complication, .fileprovider, .mdm, .location, .liveactivity, .pushtotalk, .widgets,
        .controls,
    ]

    /// The push type for an `apns-push-type` value. Apple's samples spell values in lower case; apnsim
    /// compares exactly, so `Alert` is an `InvalidPushType` (Apple leaves case rules open).
    public init?(headerValue: String) {
        guard let found = Self.all.first(where: { $0.rawValue == headerValue }) else { return nil }
        self = found
    }

    /// The type a topic's suffix implies, for requests that omit `apns-push-type` (Apple requires the header
    /// only on watchOS; apnsim infers it as pre-iOS 13 APNs did: by suffix, else `alert`).
    public static func inferred(fromTopic topic: String) -> PushType {
        suffixedLongestFirst.first { topic.hasSuffix($0.topicSuffix) } ?? .alert
    }

    /// The types whose topics carry a suffix, longest suffix first, so `.voip-ptt` wins over `.voip`.
    private static let suffixedLongestFirst = all.filter { !$0.topicSuffix.isEmpty }
        .sorted { $0.topicSuffix.count > $1.topicSuffix.count }

    /// The bundle ID inside a topic of this type: the topic without the type's suffix.
    public func bundleID(fromTopic topic: String) -> String {
        guard !topicSuffix.isEmpty, topic.hasSuffix(topicSuffix) else { return topic }
        return String(topic.dropLast(topicSuffix.count))
    }
}

extension PushType: Codable {
    /// Encoded as its header value.
    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(String.self)
        guard let type = PushType(headerValue: value) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown push type \(value)"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
