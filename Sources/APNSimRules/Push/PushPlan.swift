import Foundation

/// What the header stage of validation learned about a request it let through: everything the body stage,
/// the recorder and the router need.
public struct PushPlan: Sendable, Hashable {
    /// The `apns-id` as sent (echoed exactly), or `nil` when the gateway must generate one.
    public var apnsID: String?
    public var token: DeviceToken
    public var topic: String
    public var bundleID: String
    public var pushType: PushType
    /// 10, 5 or 1.
    public var priority: Int
    public var expiration: Expiration
    public var collapseID: String?
    /// Largest body accepted for this request, in bytes.
    public var payloadLimit: Int

    public init(apnsID: String?, token: DeviceToken, topic: String, bundleID: String, pushType: PushType,
                priority: Int, expiration: Expiration, collapseID: String?, payloadLimit: Int) {
        self.apnsID = apnsID
        self.token = token
        self.topic = topic
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payloadLimit = payloadLimit
    }

    /// `apns-expiration` as the store-and-forward layer reads it (Apple, "Sending notification requests to APNs").
    public enum Expiration: Sendable, Hashable, Codable {
        /// Header omitted: stored under APNs' default policy.
        case storeByDefault
        /// `0`: one delivery attempt, never stored.
        case once
        /// Store and retry until this moment.
        case until(Date)
    }
}
