import Foundation

/// An app as it is installed on a simulated device: what its signature says (bundle ID, team, the
/// `aps-environment` entitlement) and the provisioning profile it was signed with.
public struct AppManifest: Sendable, Hashable, Codable {
    public var bundleID: String
    /// The Team ID of the signing identity.
    public var team: String
    /// The `aps-environment` entitlement; `nil` when the app does not have the Push Notifications capability.
    public var apsEnvironment: APNsEnvironment?
    public var profile: ProvisioningProfile
    /// The notification service extension the app embeds, if any.
    public var serviceExtension: ServiceExtensionManifest?
    /// A folder standing for the app bundle's resources (`Bundle.main`), such as media a Salesforce push names.
    public var resources: String?
    /// The notification categories the app registers once installed (as at its launch); its service extension may
    /// change them (docs/service-extensions.md, "Categories").
    public var categories: [NotificationCategory]?
    /// The `com.apple.security.application-groups` entitlement: the App Groups the app shares with its extension.
    public var appGroups: [String]?
    /// The `ActivityAttributes` types its Live Activities use; `nil`: none declared, and content states go unchecked.
    public var activityTypes: [ActivityAttributesType]?
    /// Keys of its Info.plist that change what iOS does (``supportsFrequentUpdates``).
    public var infoPlist: [String: JSONValue]?

    /// `NSSupportsLiveActivitiesFrequentUpdates` in its Info.plist: a larger budget of priority-10 Live Activity
    /// updates (``ActivityBudget``).
    public var supportsFrequentUpdates: Bool {
        infoPlist?["NSSupportsLiveActivitiesFrequentUpdates"] == .bool(true)
    }

    /// The declared type named `name`, when the app declares types.
    public func activityType(_ name: String) -> ActivityAttributesType? {
        activityTypes?.first { $0.name == name }
    }

    /// Takes what the world declares about this app on every device: its extension, resources, categories, App Groups,
    /// Live Activity types and Info.plist keys.
    public mutating func adopt(_ declared: World.App?) {
        guard let declared else { return }
        serviceExtension = declared.serviceExtension
        resources = declared.resources
        categories = declared.categories
        appGroups = declared.appGroups
        activityTypes = declared.activityTypes
        infoPlist = declared.infoPlist
    }

    public init(bundleID: String, team: String, apsEnvironment: APNsEnvironment?, profile: ProvisioningProfile) {
        self.bundleID = bundleID
        self.team = team
        self.apsEnvironment = apsEnvironment
        self.profile = profile
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
