import Foundation

/// An app as it is installed on a simulated device: what its signature says (bundle ID, team, the
/// `aps-environment` entitlement) and the provisioning profile it was signed with.
public struct AppManifest: Sendable, Hashable, Codable {
    /// What the app is wherever it is installed, as a world file and `POST /v1/apps` declare it: bundle ID, team (of
    /// the signing identity), service extension, resources, categories, App Groups, Live Activity types, Info.plist.
    public var declaration: World.App
    /// The `aps-environment` entitlement; `nil` when the app does not have the Push Notifications capability.
    public var apsEnvironment: APNsEnvironment?
    public var profile: ProvisioningProfile

    public var bundleID: String {
        get { declaration.bundleID }
        set { declaration.bundleID = newValue }
    }
    /// The Team ID of the signing identity.
    public var team: String {
        get { declaration.team }
        set { declaration.team = newValue }
    }
    /// The notification service extension the app embeds, if any.
    public var serviceExtension: ServiceExtensionManifest? {
        get { declaration.serviceExtension }
        set { declaration.serviceExtension = newValue }
    }
    /// A folder standing for the app bundle's resources (`Bundle.main`), such as media a Salesforce push names.
    public var resources: String? {
        get { declaration.resources }
        set { declaration.resources = newValue }
    }
    /// The notification categories the app registers once installed (as at its launch); its service extension may
    /// change them (docs/service-extensions.md, "Categories").
    public var categories: [NotificationCategory]? {
        get { declaration.categories }
        set { declaration.categories = newValue }
    }

    public var responses: World.App.Responses? {
        get { declaration.responses }
        set { declaration.responses = newValue }
    }

    public var entitlements: [String]? {
        get { declaration.entitlements }
        set { declaration.entitlements = newValue }
    }
    /// The `com.apple.security.application-groups` entitlement: the App Groups the app shares with its extension.
    public var appGroups: [String]? {
        get { declaration.appGroups }
        set { declaration.appGroups = newValue }
    }
    /// The `ActivityAttributes` types its Live Activities use; `nil`: none declared, and content states go unchecked.
    public var activityTypes: [ActivityAttributesType]? {
        get { declaration.activityTypes }
        set { declaration.activityTypes = newValue }
    }
    /// Keys of its Info.plist that change what iOS does (``supportsFrequentUpdates``).
    public var infoPlist: [String: JSONValue]? {
        get { declaration.infoPlist }
        set { declaration.infoPlist = newValue }
    }

    /// `NSSupportsLiveActivitiesFrequentUpdates` in its Info.plist: a larger budget of priority-10 Live Activity
    /// updates (``ActivityBudget``).
    public var supportsFrequentUpdates: Bool {
        infoPlist?["NSSupportsLiveActivitiesFrequentUpdates"] == .bool(true)
    }

    /// The declared type named `name`, when the app declares types.
    public func activityType(_ name: String) -> ActivityAttributesType? {
        activityTypes?.first { $0.name == name }
    }

    /// Takes what the world declares about this app on every device (its declaration, whole); the bundle ID and the
    /// team stay the signature's.
    public mutating func adopt(_ declared: World.App?) {
        guard var declared else { return }
        declared.bundleID = bundleID
        declared.team = team
        declaration = declared
    }

    /// One object, as before the declaration was its own type: the declaration's keys beside `apsEnvironment` and
    /// `profile` (`POST /v1/devices/{id}/apps`, the device link's `install`).
    private enum CodingKeys: String, CodingKey {
        case apsEnvironment, profile
    }

    public init(from decoder: any Decoder) throws {
        declaration = try World.App(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apsEnvironment = try container.decodeIfPresent(APNsEnvironment.self, forKey: .apsEnvironment)
        profile = try container.decode(ProvisioningProfile.self, forKey: .profile)
    }

    public func encode(to encoder: any Encoder) throws {
        try declaration.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(apsEnvironment, forKey: .apsEnvironment)
        try container.encode(profile, forKey: .profile)
    }

    public init(bundleID: String, team: String, apsEnvironment: APNsEnvironment?, profile: ProvisioningProfile) {
        self.declaration = World.App(bundleID: bundleID, team: team)
        self.apsEnvironment = apsEnvironment
        self.profile = profile
    }

    /// An app as a device installs it from a world: signed for `environment` by its declared team (`team` when the
    /// world declares none), and taking its declaration whole (`apnsim up`'s devices, in its process or their own).
    public static func installed(bundleID: String, environment: APNsEnvironment, declared: World.App?,
                                 team: String = "SIMTEAM001", now: Date) -> AppManifest {
        var manifest = signed(bundleID: bundleID, team: declared?.team ?? team, environment: environment, now: now)
        manifest.adopt(declared)
        return manifest
    }

    /// A correctly signed app of `team` for `environment` whose profile lasts a year from `now`, as Xcode's
    /// automatic signing would make it.
    public static func signed(bundleID: String, team: String, environment: APNsEnvironment, now: Date) -> AppManifest {
        AppManifest(bundleID: bundleID, team: team, apsEnvironment: environment,
                    profile: ProvisioningProfile(name: "apnsim \(bundleID) \(environment)", team: team,
                                                 appID: "\(team).\(bundleID)", kind: environment == .development ? .development : .adHoc,
                                                 expires: now.addingTimeInterval(365 * 86_400)))
    }
}

/// The parts of a provisioning profile that decide whether an app with push can be installed.
public struct ProvisioningProfile: Sendable, Hashable, Codable {
    public var name: String
    public var team: String
    /// `TEAMID.bundle.id`, or a wildcard such as `TEAMID.*` or `TEAMID.com.example.*`.
    public var appID: String
    public var kind: Kind
    public var expires: Date
    /// Whether the App ID has the Push Notifications capability enabled.
    public var pushCapability: Bool
    /// The App Groups the App ID has; `nil`: those its target's entitlements list, as Xcode's automatic signing
    /// adds them.
    public var appGroups: [String]?

    public enum Kind: String, Sendable, Hashable, Codable {
        case development
        case adHoc = "ad-hoc"
        case appStore = "app-store"
        case enterprise

        /// The `aps-environment` Xcode writes for a profile of this kind (Apple, "APS Environment Entitlement",
        /// https://developer.apple.com/documentation/bundleresources/entitlements/aps-environment):
        /// development profiles give development, every distribution profile production.
        public var apsEnvironment: APNsEnvironment { self == .development ? .development : .production }
    }

    public init(name: String, team: String, appID: String, kind: Kind, expires: Date, pushCapability: Bool = true,
                appGroups: [String]? = nil) {
        self.appGroups = appGroups
        self.name = name
        self.team = team
        self.appID = appID
        self.kind = kind
        self.expires = expires
        self.pushCapability = pushCapability
    }

    public var isWildcard: Bool { appID.hasSuffix("*") }

    /// Whether the profile's App ID covers `bundleID` of `team`.
    public func covers(bundleID: String, team: String) -> Bool {
        let full = "\(team).\(bundleID)"
        guard isWildcard else { return appID == full }
        return full.hasPrefix(String(appID.dropLast()))
    }
}
