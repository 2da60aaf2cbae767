/// An app registered on a device: the token the gateway gave it (the device link's `registered`), as
/// `GET /v1/devices` lists it.
public struct RegisteredApp: Sendable, Hashable, Codable {
    public var bundleID: String
    public var environment: APNsEnvironment
    public var token: DeviceToken
    /// The app's push-to-start token for each attributes type it asked for: a `liveactivity` push with
    /// `event: start` sent to one starts an activity of that type.
    public var pushToStartTokens: [String: DeviceToken]?
    public init(bundleID: String, environment: APNsEnvironment, token: DeviceToken, pushToStartTokens: [String: DeviceToken]? = nil) {
        self.pushToStartTokens = pushToStartTokens
        self.bundleID = bundleID
        self.environment = environment
        self.token = token
    }
}
