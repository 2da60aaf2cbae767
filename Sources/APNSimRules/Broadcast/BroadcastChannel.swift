import Foundation

/// A broadcast channel (iOS 18): an app's channel that one broadcast push updates every Live Activity subscribed to
/// (Apple, "Sending channel management requests to APNs",
/// https://developer.apple.com/documentation/usernotifications/sending-channel-management-requests-to-apns).
/// Channels belong to one app in one environment; their storage policy never changes; a deleted channel's ID is never
/// used again.
public struct BroadcastChannel: Sendable, Hashable, Codable {
    /// The `apns-channel-id`: base64 text, as APNs gives it out.
    public var id: String
    public var bundleID: String
    public var environment: APNsEnvironment
    public var storagePolicy: StoragePolicy
    public var createdAt: Date

    public init(id: String, bundleID: String, environment: APNsEnvironment, storagePolicy: StoragePolicy, createdAt: Date) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
    }

    /// `message-storage-policy`: whether APNs keeps a channel's latest message for devices that are offline or subscribe
    /// later.
    public enum StoragePolicy: Int, Sendable, Hashable, Codable {
        /// `0`: nothing is stored; broadcasts must have `apns-expiration: 0`.
        case noStorage = 0
        /// `1`: the most recent message is stored, for at most ``BroadcastChannel/maximumStorage``.
        case mostRecentMessage = 1
    }

    /// How long a channel with storage keeps its latest message: eight hours (Apple, "Sending broadcast push notification
    /// requests to APNs"), less when `apns-expiration` says so.
    public static let maximumStorage: TimeInterval = 8 * 3600
    /// Channels an app may have in one environment (Apple, "Sending channel management requests to APNs").
    public static let perAppLimit = 10_000
    /// Apple gives no length for a channel ID; apnsim answers `BadChannelId` for one that decodes to more bytes than this.
    public static let maximumIDBytes = 64

    /// Why `text` cannot be a channel ID (not base64, or too long), or `nil` when it can.
    public static func idProblem(_ text: String) -> String? {
        guard let bytes = Data(base64Encoded: text), !bytes.isEmpty else {
            return "apns-channel-id '\(text)' is not base64 text, as APNs gives channel IDs out"
        }
        guard bytes.count <= maximumIDBytes else {
            return "apns-channel-id '\(text.prefix(24))…' is \(bytes.count) bytes; apnsim takes channel IDs of at most \(maximumIDBytes)"
        }
        return nil
    }
}

/// A broadcast message a channel with storage keeps for devices that come online or subscribe later.
public struct StoredBroadcast: Sendable, Hashable {
    public var apnsID: String
    public var priority: Int
    public var payload: String
    public var expires: Date

    public init(apnsID: String, priority: Int, payload: String, expires: Date) {
        self.apnsID = apnsID
        self.priority = priority
        self.payload = payload
        self.expires = expires
    }
}
