/// A reason APNs gives for refusing a request: the wire string and the HTTP status it travels with.
///
/// An open struct rather than an enum, so a reason Apple adds later round-trips without a source break
/// (the shape of swift-nio-http2's `HTTP2ErrorCode`). The table is Apple's
/// "Handling notification responses from APNs".
public struct RejectionReason: Hashable, Sendable, CustomStringConvertible {
    /// The string in the response body's `reason` field, for example `BadDeviceToken`.
    public var rawValue: String
    /// The HTTP status code that carries this reason.
    public var status: Int

    public init(_ rawValue: String, status: Int) {
        self.rawValue = rawValue
        self.status = status
    }

    public var description: String { "\(status) \(rawValue)" }
}

extension RejectionReason {
    // 400
    public static let badCollapseId = Self("BadCollapseId", status: 400)
    public static let badDeviceToken = Self("BadDeviceToken", status: 400)
    public static let badExpirationDate = Self("BadExpirationDate", status: 400)
    public static let badMessageId = Self("BadMessageId", status: 400)
    public static let badPriority = Self("BadPriority", status: 400)
    public static let badTopic = Self("BadTopic", status: 400)
    public static let deviceTokenNotForTopic = Self("DeviceTokenNotForTopic", status: 400)
    public static let duplicateHeaders = Self("DuplicateHeaders", status: 400)
    public static let idleTimeout = Self("IdleTimeout", status: 400)
    public static let invalidPushType = Self("InvalidPushType", status: 400)
    public static let missingDeviceToken = Self("MissingDeviceToken", status: 400)
    public static let missingTopic = Self("MissingTopic", status: 400)
    public static let payloadEmpty = Self("PayloadEmpty", status: 400)
    public static let topicDisallowed = Self("TopicDisallowed", status: 400)
    // 403
    public static let badCertificate = Self("BadCertificate", status: 403)
    public static let badCertificateEnvironment = Self("BadCertificateEnvironment", status: 403)
    public static let expiredProviderToken = Self("ExpiredProviderToken", status: 403)
    public static let forbidden = Self("Forbidden", status: 403)
    public static let invalidProviderToken = Self("InvalidProviderToken", status: 403)
    public static let missingProviderToken = Self("MissingProviderToken", status: 403)
    public static let unrelatedKeyIdInToken = Self("UnrelatedKeyIdInToken", status: 403)
    public static let badEnvironmentKeyIdInToken = Self("BadEnvironmentKeyIdInToken", status: 403)
    /// The same refusal as the wire has been reported to spell it: APNSwift (pull request 229, October 2025) and other
    /// clients' tests saw `BadEnvironmentKeyInToken`, while Apple's table says `BadEnvironmentKeyIdInToken`. Not in
    /// ``all`` (Apple's table); a gateway answers with it when told to (``ProviderTokenSession/Configuration/environmentKeyReason``).
    public static let badEnvironmentKeyInToken = Self("BadEnvironmentKeyInToken", status: 403)
    // 404, 405
    public static let badPath = Self("BadPath", status: 404)
    public static let methodNotAllowed = Self("MethodNotAllowed", status: 405)
    // 410
    public static let expiredToken = Self("ExpiredToken", status: 410)
    public static let unregistered = Self("Unregistered", status: 410)
    // 413
    public static let payloadTooLarge = Self("PayloadTooLarge", status: 413)
    // 429
    public static let tooManyProviderTokenUpdates = Self("TooManyProviderTokenUpdates", status: 429)
    public static let tooManyRequests = Self("TooManyRequests", status: 429)
    // 5xx
    public static let internalServerError = Self("InternalServerError", status: 500)
    public static let serviceUnavailable = Self("ServiceUnavailable", status: 503)
    public static let shutdown = Self("Shutdown", status: 503)

    /// Every reason of the device-push table, in the order of Apple's table.
    public static let all: [RejectionReason] = [
        .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken,
        .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badPath, .methodNotAllowed, .expiredToken,
        .unregistered, .payloadTooLarge, .tooManyProviderTokenUpdates, .tooManyRequests,
        .internalServerError, .serviceUnavailable, .shutdown,
    ]
}

/// The reasons only the broadcast and channel management APIs give (Apple, "Handling error responses from Apple Push
/// Notification service" for broadcasts,
/// https://developer.apple.com/documentation/usernotifications/handling-error-responses-from-apns).
extension RejectionReason {
    public static let badChannelId = Self("BadChannelId", status: 400)
    public static let badRequestParams = Self("BadRequestParams", status: 400)
    public static let badRequestPayload = Self("BadRequestPayload", status: 400)
    public static let cannotCreateChannelConfig = Self("CannotCreateChannelConfig", status: 400)
    public static let channelNotRegistered = Self("ChannelNotRegistered", status: 400)
    public static let featureNotEnabled = Self("FeatureNotEnabled", status: 400)
    /// Not in Apple's table: seen by client authors for a create without a valid `message-storage-policy`.
    public static let missingChannelQueueSize = Self("MissingChannelQueueSize", status: 400)
    public static let missingChannelId = Self("MissingChannelId", status: 400)
    public static let missingPushType = Self("MissingPushType", status: 400)
    public static let topicMismatch = Self("TopicMismatch", status: 403)
}
