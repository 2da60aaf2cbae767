/// A push as the gateway hands it to a device (the device link's `push`), and as it is stored while the device is
/// offline.
public struct Delivery: Sendable, Hashable, Codable {
    /// The gateway's ID for this delivery; `ack` and `receipt` name it.
    public var id: String
    public var apnsID: String
    public var token: DeviceToken
    public var bundleID: String
    public var pushType: PushType
    public var priority: Int
    public var collapseID: String?
    /// The payload exactly as the provider sent it.
    public var payload: String
    /// For a broadcast: its channel, and the Live Activity subscribed to it that this delivery is for (``token`` is
    /// then the app's device token).
    public var channel: String?
    public var activity: String?
    public init(id: String, apnsID: String, token: DeviceToken, bundleID: String, pushType: PushType, priority: Int,
                collapseID: String?, payload: String, channel: String? = nil, activity: String? = nil) {
        self.channel = channel
        self.activity = activity
        self.id = id
        self.apnsID = apnsID
        self.token = token
        self.bundleID = bundleID
        self.pushType = pushType
        self.priority = priority
        self.collapseID = collapseID
        self.payload = payload
    }
}
