import Foundation

/// Everything apnsim knows about the accounts and devices it simulates: teams, signing keys, apps and
/// device tokens. A value; the running gateway keeps the live copy in a `WorldRegistry` (APNSimGateway).
public struct World: Sendable {
    public var teams: [String: Team] = [:]
    public var keys: [String: ProviderKey] = [:]
    public var apps: [String: App] = [:]
    /// The tokens the world declares, one by one and by its token sets. A running gateway moves them into its one
    /// token table, beside those its devices hold (APNSimGateway's `DeviceRegistry`), and hands the validator a world
    /// whose `tokens` is that table.
    public var tokens = TokenTable()
    /// The token sets the world declares by count and seed (``TokenSet``); their tokens are in ``tokens``.
    public var tokenSets: [TokenSet] = []
    /// The simulated devices a sandbox starts (`apnsim up`); the gateway itself learns devices when they connect.
    public var devices: [DeviceSpec] = []
    /// Broadcast channels by ID, as providers created them through the channel management API.
    public var channels: [String: BroadcastChannel] = [:]

    public init() {}

    /// A simulated device as a world file declares it.
    public struct DeviceSpec: Sendable, Hashable, Codable {
        public var id: String
        public var name: String
        public var model: String?
        public var os: String?
        public var apps: [AppSpec]
        /// Whether the device skips a service extension for a push whose category is not among the extension's
        /// `UNNotificationExtensionCategory` (iOS does not); `nil`: it does not.
        public var extensionCategoriesApply: Bool?
        /// Seconds a service extension has per push on this device; `nil`: 30.
        public var extensionBudget: Double?
        /// This many devices alike instead of one, named `ID-1` … `ID-N` (`apnsim device --count`): a fleet for
        /// broadcasts and load; `nil`: one device named `ID`.
        public var count: Int?

        /// The IDs of the devices this spec stands for.
        public var deviceIDs: [String] { Self.fleet(id: id, name: name, count: count).map(\.id) }

        /// The devices `count` alike stand for, by ID and name: `ID-1` … `ID-N` named `NAME 1` … `NAME N`, or one device
        /// `ID` named `NAME` (what `apnsim device --count` and a world file's `count` both start).
        public static func fleet(id: String, name: String, count: Int?) -> [(id: String, name: String)] {
            guard let count, count > 1 else { return [(id, name)] }
            return (1...count).map { ("\(id)-\($0)", "\(name) \($0)") }
        }

        public init(id: String, name: String, model: String? = nil, os: String? = nil, apps: [AppSpec],
                    extensionCategoriesApply: Bool? = nil, extensionBudget: Double? = nil) {
            self.id = id
            self.name = name
            self.model = model
            self.os = os
            self.apps = apps
            self.extensionCategoriesApply = extensionCategoriesApply
            self.extensionBudget = extensionBudget
        }
    }

    /// An app installed on a declared device, signed for one environment; its team comes from `apps:`.
    public struct AppSpec: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: APNsEnvironment
        /// The app's notification settings allow alerts; `nil`: they do. With alerts off iOS skips its extension.
        public var alerts: Bool?

        public init(bundleID: String, environment: APNsEnvironment, alerts: Bool? = nil) {
            self.bundleID = bundleID
            self.environment = environment
            self.alerts = alerts
        }
    }

    /// A developer account (Apple's Team ID is ten characters, such as `SIMTEAM001`).
    public struct Team: Sendable, Hashable, Codable {
        public var id: String
        public var name: String?
        public init(id: String, name: String? = nil) {
            self.id = id
            self.name = name
        }
    }

    /// An app that can receive pushes: a bundle ID owned by one team.
    public struct App: Sendable, Hashable, Codable {
        public var bundleID: String
        public var team: String
        /// The notification service extension the app embeds, on every device that installs it.
        public var serviceExtension: ServiceExtensionManifest?
        /// A folder standing for the app bundle's resources; relative to the world file in a world file.
        public var resources: String?
        /// The notification categories the app registers when it is installed, as it would at launch.
        public var categories: [NotificationCategory]?
        /// The App Groups its entitlements list (`com.apple.security.application-groups`).
        public var appGroups: [String]?
        /// The `ActivityAttributes` types its Live Activities use (ActivityKit).
        public var activityTypes: [ActivityAttributesType]?
        /// Keys of its Info.plist that change what iOS does, such as `NSSupportsLiveActivitiesFrequentUpdates`.
        public var infoPlist: [String: JSONValue]?
        /// What it does with the user's responses to its notifications beyond its vendor SDK's rules (docs/interactions.md).
        public var responses: Responses?
        /// Entitlements beside `aps-environment` and its App Groups that change what iOS does with its notifications:
        /// `com.apple.developer.usernotifications.time-sensitive`, `com.apple.developer.usernotifications.critical-alerts`.
        public var entitlements: [String]?
        /// The widgets its widget extension offers, and whether they take WidgetKit pushes (``Widgets``).
        public var widgets: Widgets?
        /// The controls it offers, each with a push token of its own when they take pushes (``Controls``).
        public var controls: Controls?

        public struct Responses: Sendable, Hashable, Codable {
            /// Payload keys, in order, whose string the app opens on a tap when no vendor's keys decide; `["url"]` when absent.
            public var urlKeys: [String]?
            /// A URL each response is POSTed to as JSON (the team's backend, or a test double), with retries; the
            /// interaction record says what it answered.
            public var forward: String?
            /// The team's own `UNUserNotificationCenterDelegate`, built and run as the app's process: it is handed
            /// each response and, while the app is in the foreground, each notification to present.
            public var delegate: Delegate?

            public init(urlKeys: [String]? = nil, forward: String? = nil, delegate: Delegate? = nil) {
                self.urlKeys = urlKeys
                self.forward = forward
                self.delegate = delegate
            }
        }

        /// A Swift source with the app's `UNUserNotificationCenterDelegate` (docs/interactions.md, "The app's own delegate").
        public struct Delegate: Sendable, Hashable, Codable {
            /// A Swift file, or a folder of them; relative to the world file in a world file.
            public var source: String
            /// The class to run; when absent, the one class of the source that adopts `UNUserNotificationCenterDelegate`.
            public var `class`: String?

            public init(source: String, class name: String? = nil) {
                self.source = source
                self.class = name
            }
        }
        public init(bundleID: String, team: String, serviceExtension: ServiceExtensionManifest? = nil, resources: String? = nil,
                    categories: [NotificationCategory]? = nil, appGroups: [String]? = nil) {
            self.appGroups = appGroups
            self.bundleID = bundleID
            self.team = team
            self.serviceExtension = serviceExtension
            self.resources = resources
            self.categories = categories
        }
    }
}

extension World.App {
    /// Why `bundleID` cannot be an app's bundle ID, or `nil` when it can. Apple: "The bundle ID string must contain
    /// only alphanumeric characters (A–Z, a–z, and 0–9), hyphens (-), and periods (.)" ("CFBundleIdentifier",
    /// https://developer.apple.com/documentation/bundleresources/information-property-list/cfbundleidentifier). An
    /// empty one would also name no app in `/v1/devices/{id}/apps/{bundleID}`.
    public static func bundleIDProblem(_ bundleID: String) -> String? {
        if bundleID.isEmpty { return "an app's bundleID is empty; give one such as com.example.app" }
        let allowed = bundleID.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (("A"..."Z").contains(scalar) || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "-" || scalar == ".")
        }
        guard allowed else {
            return "app \(bundleID.debugDescription): a bundle ID holds only A–Z, a–z, 0–9, hyphens and periods"
        }
        return nil
    }
}

extension World {
    /// The most devices one `apnsim device` process runs (a fleet): 250,000, so four processes make the million
    /// devices of docs/cluster.md's scale run.
    public static let mostFleetDevices = 250_000

    /// Problems that make the world inconsistent (a token for an unknown app, a key of an unknown team…),
    /// as sentences; empty when the world is sound.
    public var problems: [String] {
        var found: [String] = []
        for key in keys.values.sorted(by: { $0.id < $1.id }) where teams[key.team] == nil {
            found.append("key \(key.id) names team \(key.team), which is not declared under teams")
        }
        for app in apps.values.sorted(by: { $0.bundleID < $1.bundleID }) {
            if let problem = App.bundleIDProblem(app.bundleID) { found.append(problem) }
            if teams[app.team] == nil { found.append("app \(app.bundleID) names team \(app.team), which is not declared under teams") }
            found += NotificationCategory.problems(app.categories ?? []).map { "app \(app.bundleID): \($0)" }
            found += app.widgetProblems
        }
        // Every token is checked, a million included, and only those with a problem are sorted.
        for record in tokens.filter({ apps[$0.bundleID] == nil }).sorted(by: { $0.token.hex < $1.token.hex }).prefix(20) {
            found.append("token \(record.token.short) names app \(record.bundleID), which is not declared under apps")
        }
        for set in tokenSets {
            if let problem = set.problem { found.append(problem) }
        }
        for device in devices {
            // One `apnsim device --count` process hosts a fleet.
            if let count = device.count, !(1...Self.mostFleetDevices).contains(count) {
                found.append("device \(device.id) has count \(count); a fleet is 1 to \(Self.mostFleetDevices) devices")
            }
            for app in device.apps where apps[app.bundleID] == nil {
                found.append("device \(device.id) installs \(app.bundleID), which is not declared under apps")
            }
        }
        return found
    }
}
