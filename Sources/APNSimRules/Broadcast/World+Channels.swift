import Foundation

extension World {
    /// The channel `id` of `bundleID` in `environment`, or `nil`: channels of other apps and environments do not exist
    /// for this one (Apple: sandbox and production are separate).
    public func channel(_ id: String, bundleID: String, environment: APNsEnvironment) -> BroadcastChannel? {
        guard let channel = channels[id], channel.bundleID == bundleID, channel.environment == environment else { return nil }
        return channel
    }

    /// The channels of `bundleID` in `environment`, oldest first.
    public func channels(of bundleID: String, environment: APNsEnvironment) -> [BroadcastChannel] {
        channels.values.filter { $0.bundleID == bundleID && $0.environment == environment }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Adds `channel`, unless its app already has ``BroadcastChannel/perAppLimit`` channels in its environment.
    public mutating func create(_ channel: BroadcastChannel) -> Rejection? {
        let count = channels.values.count { $0.bundleID == channel.bundleID && $0.environment == channel.environment }
        guard count < BroadcastChannel.perAppLimit else {
            return Rejection(.cannotCreateChannelConfig,
                "\(channel.bundleID) has \(count) channels in \(channel.environment), the most APNs allows; delete one first")
        }
        channels[channel.id] = channel
        return nil
    }
}
