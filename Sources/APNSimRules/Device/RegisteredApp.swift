/// An app registered on a device: the token the gateway gave it (the device link's `registered`), as
/// `GET /v1/devices` lists it.
public struct RegisteredApp: Sendable, Hashable, Codable {
    public var bundleID: String
    public var environment: APNsEnvironment
    public var token: DeviceToken
    /// The app's push-to-start token for each attributes type it asked for: a `liveactivity` push with
    /// `event: start` sent to one starts an activity of that type.
    public var pushToStartTokens: [String: DeviceToken]?
    /// The app's widget push token, when its widgets take pushes (``World/App/Widgets``): a `widgets` push to it
    /// reloads them.
    public var widgetToken: DeviceToken?
    /// The kinds of the widgets it reloads.
    public var widgetKinds: [String]?
    /// A push token for each of its controls that takes pushes, by the control's kind (``World/App/Controls``).
    public var controlTokens: [String: DeviceToken]?
    public init(bundleID: String, environment: APNsEnvironment, token: DeviceToken, pushToStartTokens: [String: DeviceToken]? = nil,
                widgetToken: DeviceToken? = nil, widgetKinds: [String]? = nil, controlTokens: [String: DeviceToken]? = nil) {
        self.widgetKinds = widgetKinds
        self.pushToStartTokens = pushToStartTokens
        self.widgetToken = widgetToken
        self.controlTokens = controlTokens
        self.bundleID = bundleID
        self.environment = environment
        self.token = token
    }
}
