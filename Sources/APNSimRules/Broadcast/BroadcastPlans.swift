import Foundation

/// A channel management request (`/1/apps/{bundle-id}/…` on the management ports) that passed the header checks.
public struct ChannelPlan: Sendable, Hashable {
    public enum Operation: Sendable, Hashable {
        /// `POST /1/apps/{bundle-id}/channels`: the body says the storage policy.
        case create
        /// `GET /1/apps/{bundle-id}/channels` with `apns-channel-id`.
        case read(BroadcastChannel)
        /// `DELETE /1/apps/{bundle-id}/channels` with `apns-channel-id`.
        case delete(BroadcastChannel)
        /// `GET /1/apps/{bundle-id}/all-channels`.
        case list
    }

    public var bundleID: String
    public var operation: Operation
    /// Largest body accepted, in bytes (a create's is a few dozen; apnsim takes as much as a broadcast's).
    public static let bodyLimit = BroadcastPlan.payloadLimit

    public init(bundleID: String, operation: Operation) {
        self.bundleID = bundleID
        self.operation = operation
    }
}

/// A broadcast (`POST /4/broadcasts/apps/{bundle-id}` on the provider ports) that passed the header checks.
public struct BroadcastPlan: Sendable, Hashable {
    public var channel: BroadcastChannel
    /// `apns-id` as sent, or `nil` when the gateway makes one.
    public var apnsID: String?
    public var priority: Int
    public var expiration: PushPlan.Expiration

    /// A broadcast's body may be 5120 bytes, as a Live Activity push's (Apple, "Sending broadcast push notification
    /// requests to APNs").
    public static let payloadLimit = 5120

    public init(channel: BroadcastChannel, apnsID: String?, priority: Int, expiration: PushPlan.Expiration) {
        self.channel = channel
        self.apnsID = apnsID
        self.priority = priority
        self.expiration = expiration
    }

    /// Until when a channel with storage keeps this message: eight hours, or `apns-expiration` if sooner; `nil` for a
    /// channel without storage.
    public func storedUntil(now: Date) -> Date? {
        guard channel.storagePolicy == .mostRecentMessage else { return nil }
        let longest = now.addingTimeInterval(BroadcastChannel.maximumStorage)
        switch expiration {
        case .once: return nil
        case .storeByDefault: return longest
        case .until(let date): return min(date, longest)
        }
    }
}
