import APNSimRules
import APNSimDevice
import APNSimSandbox
import ArgumentParser
import Foundation
import Logging
import NIOSSL
import ServiceLifecycle

/// `apnsim device`: one simulated device in this process, linked to a gateway, until Ctrl-C.
struct DeviceCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Run a simulated device: it installs its apps, registers them and shows the pushes it gets."
    )

    @Option(help: "Device ID, stable across restarts; names the device in the control API. {host} in it is this machine's host name (a container's: dev-{host} names each replica's devices apart). Environment: APNSIM_DEVICE_ID.")
    var id = EnvironmentVariables.text("APNSIM_DEVICE_ID", otherwise: "iphone-1")

    @Option(help: "How many devices to run in this process (for load); they are named ID-1 … ID-N. Environment: APNSIM_DEVICE_COUNT.")
    var count = EnvironmentVariables.whole("APNSIM_DEVICE_COUNT", option: "--count", in: 1...DeviceCommand.mostDevices,
                                           what: "a number of devices, 1 to \(DeviceCommand.mostDevices)", otherwise: 1)

    @Option(help: "How many links to the gateway the devices of this process share (at most one per device); 0 gives each device a link of its own, as a phone has: its own TLS session, and link faults that close its TCP connection. Environment: APNSIM_DEVICE_LINKS.")
    var links = EnvironmentVariables.whole("APNSIM_DEVICE_LINKS", option: "--links", in: 0...DeviceCommand.mostLinks,
                                           what: "a number of links, 0 (one per device) to \(DeviceCommand.mostLinks)", otherwise: 4)

    @Option(help: "Device name.")
    var name = "apnsim iPhone"

    @Option(help: "Model identifier.")
    var model = DeviceDescriptor.defaultModel

    @Option(help: "OS version.")
    var os = DeviceDescriptor.defaultOS

    @Option(name: .customLong("app"), help: "An installed app, BUNDLE:ENVIRONMENT (repeat for more).")
    var apps: [String] = ["com.example.app:development"]

    @Option(name: .customLong("declared"), help: "The apps as a world file or POST /v1/apps declares them, a JSON array ([{\"bundleID\", \"team\", \"serviceExtension\", \"resources\", \"categories\", \"appGroups\", \"activityTypes\", \"infoPlist\"}]): an app --app installs takes its declaration whole and is signed by its team (what apnsim up passes); the options for one part of an app change that part after it.")
    var declared: String?

    @Option(name: .customLong("extension"), help: "A notification service extension an app embeds, APP:EXTENSION:KIND, such as com.example.app:com.example.app.NotificationService:braze (kinds: \(ExtensionKind.allCases.map(\.rawValue).joined(separator: ", "))), or APP:{JSON} with a whole manifest as in a world file; repeatable.")
    var extensions: [String] = []

    @Option(name: .customLong("extension-budget"), help: "Seconds a service extension has for each push (Apple: about 30).")
    var extensionBudget = 30.0

    @Option(name: .customLong("extension-grace"), help: "Seconds serviceExtensionTimeWillExpire has to hand something over.")
    var extensionGrace = 2.0

    @Option(name: .customLong("resources"), help: "The folder standing for an app bundle's resources, APP:FOLDER (media a push names by file); repeatable.")
    var resources: [String] = []

    @Option(name: .customLong("categories"), help: "The notification categories an app registers, APP:[JSON] as a world file's app categories (UNNotificationCategory: identifier, actions…); repeatable.")
    var categories: [String] = []

    @Option(name: .customLong("activity-types"), help: "The ActivityAttributes types an app's Live Activities use, APP:[JSON] as a world file's app activityTypes ({\"name\", \"attributes\": {FIELD: TYPE}, \"contentState\": {FIELD: TYPE}}); repeatable.")
    var activityTypes: [String] = []

    @Option(name: .customLong("info-plist"), help: "Keys of an app's Info.plist, APP:{JSON} ({\"NSSupportsLiveActivitiesFrequentUpdates\": true}); repeatable.")
    var infoPlists: [String] = []

    @Option(name: .customLong("app-group"), help: "An App Group an app's entitlements list, APP:GROUP (group.com.example.app); its extension shares the group's container when it lists it too; repeatable.")
    var appGroups: [String] = []

    @Option(name: .customLong("alerts-off"), help: "An app whose notification settings have alerts off (iOS starts no service extension for it); repeatable.")
    var alertsOff: [String] = []

    @Flag(name: .customLong("extension-categories-apply"), help: "Skip a service extension for pushes whose category is not among its UNNotificationExtensionCategory (iOS ignores them).")
    var extensionCategoriesApply = false

    @Option(help: "Team ID the apps are signed with.")
    var team = "SIMTEAM001"

    @Option(name: .customLong("gateway-host"), help: "Host of the gateway's device link. Environment: APNSIM_GATEWAY_HOST.")
    var gatewayHost = EnvironmentVariables.text("APNSIM_GATEWAY_HOST", otherwise: "127.0.0.1")

    @Option(name: .customLong("device-port"), help: "Port of the gateway's device link. Environment: APNSIM_DEVICE_PORT.")
    var devicePort = EnvironmentVariables.port("APNSIM_DEVICE_PORT", option: "--device-port", otherwise: 5223)

    @Option(name: .customLong("connect-timeout"), help: "Seconds one attempt to reach the gateway may take before the device backs off and tries again.")
    var connectTimeout = 3.0

    @Option(help: "The folder Certs/generate.sh wrote (ca.pem, device.pem, device-key.pem). Default: Certs in a checkout of apnsim, else the development PKI built into apnsim, written to its data folder. Environment: APNSIM_CERTS.")
    var certs: String? = EnvironmentVariables.value("APNSIM_CERTS")

    @Option(help: "Folder for the device's data (its apps' installation IDs, so its tokens stay the same across restarts, as an iPhone's do). Default: a folder named for the device ID in apnsim's per-user data folder (APNSIM_HOME; else $XDG_DATA_HOME/apnsim or ~/.local/share/apnsim on Linux, ~/Library/Application Support/apnsim on macOS).")
    var data: String?

    @Flag(help: "Keep nothing: every start is a new device with new tokens (for tests that want a fresh identity).")
    var ephemeral = false

    @Option(name: .customLong("background-budget"), help: "Background pushes that may wake an app per hour (Apple: two or three); 0 lifts the limit.")
    var backgroundBudget = 3
    @Option(name: .customLong("notification-limit"), help: "Notifications of each app the device keeps shown, newest first; older ones leave (the record keeps every delivery).")
    var notificationLimit = NotificationList().displayedLimit

    @Option(name: .customLong("activity-budget"), help: "Priority-10 Live Activity updates an app may have per hour, then PER_HOUR_WITH_FREQUENT_UPDATES for an app whose Info.plist sets NSSupportsLiveActivitiesFrequentUpdates (Apple publishes no numbers; 0 turns throttling off).")
    var activityBudget = "15:240"

    @Option(name: .customLong("foreground"), help: "An app in the foreground, BUNDLE or BUNDLE:banner,list,sound,badge (what its willPresent returns; none = show nothing); repeatable.")
    var foreground: [String] = []

    @Option(name: .customLong("drop-link-before-ack"), help: "For testing delivery guarantees: drop the link on this many pushes before answering them, as a device dying mid-delivery would.")
    var dropLinkBeforeAck = 0

    @OptionGroup var log: LogOptions

    @Flag(name: .customLong("stop-when-stdin-closes"), help: "Stop when standard input ends: apnsim up starts devices this way, so they end with it however it ends.")
    var stopWhenStdinCloses = false

    /// The most devices one process runs (`--count`).
    static let mostDevices = 100_000
    /// The most devices one process runs with a link each (`--links 0`): each takes a file descriptor on either side.
    static let mostDevicesWithOwnLinks = 10_000
    /// The most links one process's devices share (`--links`).
    static let mostLinks = 64

    /// `id` with `{host}` replaced by this machine's host name: a container's, so that the replicas of one compose
    /// service or StatefulSet, started alike, name their devices apart.
    static func expandHost(in id: String) -> String {
        id.replacingOccurrences(of: "{host}", with: ProcessInfo.processInfo.hostName)
    }

    func run() async throws {
        let logger = log.logger("apnsim.device")
        let id = Self.expandHost(in: id)
        // A device keeps its identity unless told not to: one stopped and started, as a container is, gets the pushes
        // held for its tokens while it was down.
        let data = ephemeral ? nil : data ?? DataHome.device(id).path
        let declarations = try Self.declarations(declared)
        var manifests = try apps.map { try Self.manifest($0, team: team, declarations: declarations) }
        try Self.apply(extensions, option: "--extension", to: &manifests, split: Self.serviceExtension) { $0.serviceExtension = $1 }
        try Self.apply(resources, option: "--resources", to: &manifests) { $0.resources = URL(fileURLWithPath: $1).standardizedFileURL.path }
        try Self.apply(appGroups, option: "--app-group", to: &manifests) { $0.appGroups = ($0.appGroups ?? []) + [$1] }
        try Self.apply(categories, option: "--categories", to: &manifests) { manifest, json in
            let registered: [NotificationCategory]
            do {
                registered = try JSONDecoder().decode([NotificationCategory].self, from: Data(json.utf8))
            } catch {
                throw ValidationError("--categories for \(manifest.bundleID) is not a JSON array of categories ({\"identifier\": …, \"actions\": […]}): \(error)")
            }
            if let problem = NotificationCategory.problems(registered).first {
                throw ValidationError("--categories for \(manifest.bundleID): \(problem)")
            }
            manifest.categories = registered
        }
        try Self.apply(activityTypes, option: "--activity-types", to: &manifests) { manifest, json in
            do {
                manifest.activityTypes = try JSONDecoder().decode([ActivityAttributesType].self, from: Data(json.utf8))
            } catch {
                throw ValidationError("--activity-types for \(manifest.bundleID) is not a JSON array of types ({\"name\", \"attributes\", \"contentState\"}): \(error)")
            }
        }
        try Self.apply(infoPlists, option: "--info-plist", to: &manifests) { manifest, json in
            guard let plist = JSONObjectSyntax.object(Array(json.utf8)) else {
                throw ValidationError("--info-plist for \(manifest.bundleID) is not a JSON object: \(json)")
            }
            manifest.infoPlist = plist
        }
        let certs = try DevelopmentFiles().find(.certs, given: certs).path
        let tlsContext: NIOSSLContext
        do {
            tlsContext = try DeviceHost.makeTLSContext(.certsDirectory(certs))
        } catch {
            throw ValidationError("\(error)")
        }
        let budget = try Self.parseActivityBudget(activityBudget)
        // The devices of one process form a group: they share links (unless `--links 0`), and a broadcast for several
        // of them comes on one link.
        // A fleet keeps its devices' data in one file (`devices.json` in `--data`), not a folder for each.
        let group = count > 1 || links > 0
            ? DeviceHostGroup(sharedLinks: min(links, count), data: count > 1 ? data.map { DeviceData.fleet(in: $0) } : nil) : nil
        let hosts = World.DeviceSpec.fleet(id: id, name: name, count: count).map { deviceID, deviceName -> DeviceHost in
            var configuration = DeviceHostConfiguration(
                tls: .certsDirectory(certs),
                device: DeviceDescriptor(id: deviceID, name: deviceName, model: model, os: os),
                apps: manifests)
            configuration.gatewayHost = gatewayHost
            configuration.devicePort = devicePort
            configuration.connectTimeout = .milliseconds(Int64(connectTimeout * 1000))
            configuration.dropLinkBeforeAcknowledging = dropLinkBeforeAck
            configuration.backgroundBudget = backgroundBudget > 0 ? .init(count: backgroundBudget, period: 3600) : nil
            configuration.activityBudget = budget
            configuration.notificationLimit = notificationLimit
            configuration.foreground = presentation
            configuration.extensionBudget = .milliseconds(Int64(extensionBudget * 1000))
            configuration.extensionGrace = .milliseconds(Int64(extensionGrace * 1000))
            configuration.alertsOff = Set(alertsOff)
            configuration.extensionCategoriesApply = extensionCategoriesApply
            configuration.group = group
            configuration.dataDirectory = data.map { count > 1 ? URL(fileURLWithPath: $0).appendingPathComponent(deviceID).path : $0 }
            return DeviceHost(configuration: configuration, logger: logger, tlsContext: tlsContext)
        }
        try await ProcessLife.run([DeviceService(hosts: hosts, logger: logger)], name: count > 1 ? "device \(id)-1…\(count)" : "device \(id)",
                                  logger: logger, stopWhenStdinCloses: stopWhenStdinCloses,
                                  started: "started, linking to \(gatewayHost):\(devicePort); "
                                      + (data.map { "its identity (and so its tokens) kept in \($0)" } ?? "a new identity (--ephemeral)"))
    }

    /// `--foreground` as a table; a bare bundle ID means willPresent returns nothing.
    var presentation: [String: Set<PresentationOption>] {
        Dictionary(foreground.map { entry in
            let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
            let options = parts.count > 1 ? Set(parts[1].split(separator: ",").compactMap { PresentationOption(rawValue: String($0)) }) : []
            return (parts[0], options)
        }, uniquingKeysWith: { $1 })
    }

    func validate() throws {
        guard !(ephemeral && data != nil) else {
            throw ValidationError("--ephemeral keeps nothing and --data names where to keep the device's identity: give one of them")
        }
        guard notificationLimit >= 1 else {
            throw ValidationError("--notification-limit takes 1 or more notifications; got \(notificationLimit)")
        }
        for entry in foreground {
            let parts = entry.split(separator: ":", maxSplits: 1)
            for option in parts.dropFirst().first?.split(separator: ",") ?? [] where PresentationOption(rawValue: String(option)) == nil {
                throw ValidationError("--foreground options are banner, list, sound, badge; got \(option)")
            }
        }
        guard (1...Self.mostDevices).contains(count) else { throw ValidationError("--count takes 1 to \(Self.mostDevices); got \(count)") }
        guard (0...Self.mostLinks).contains(links) else { throw ValidationError("--links takes 0 (a link per device) to \(Self.mostLinks); got \(links)") }
        guard links > 0 || count <= Self.mostDevicesWithOwnLinks else {
            throw ValidationError("--count \(count) with --links 0 would open a link per device, a file descriptor each on this side and the gateway's; "
                                  + "up to \(Self.mostDevicesWithOwnLinks) devices have their own links, more share them (--links 1 or more)")
        }
        guard extensionBudget.isFinite, (0.1...600).contains(extensionBudget) else {
            throw ValidationError("--extension-budget takes 0.1 to 600 seconds; got \(extensionBudget)")
        }
        guard connectTimeout.isFinite, (0.1...600).contains(connectTimeout) else {
            throw ValidationError("--connect-timeout takes 0.1 to 600 seconds; got \(connectTimeout)")
        }
        guard extensionGrace.isFinite, (0...600).contains(extensionGrace) else {
            throw ValidationError("--extension-grace takes 0 to 600 seconds; got \(extensionGrace)")
        }
        for entry in resources { _ = try Self.appAndValue(entry, option: "--resources") }
        for entry in extensions { _ = try Self.serviceExtension(entry) }
    }

    /// Applies each `APP:VALUE` entry of `option` to the manifest of APP, which must be one of the `--app` apps.
    static func apply(_ entries: [String], option: String, to manifests: inout [AppManifest],
                      _ change: (inout AppManifest, String) throws -> Void) throws {
        try apply(entries, option: option, to: &manifests, split: { try appAndValue($0, option: option) }, change)
    }

    /// The same, each entry read by `split` into the app and its value.
    static func apply<Value>(_ entries: [String], option: String, to manifests: inout [AppManifest],
                             split: (String) throws -> (String, Value), _ change: (inout AppManifest, Value) throws -> Void) throws {
        for entry in entries {
            let (app, value) = try split(entry)
            guard let index = manifests.firstIndex(where: { $0.bundleID == app }) else {
                throw ValidationError("\(option) \(entry.prefix(80)) names \(app), which is not one of the --app apps")
            }
            try change(&manifests[index], value)
        }
    }

    /// `com.example.app:com.example.app.NotificationService:braze`, or `com.example.app:{JSON manifest}` → the app's
    /// bundle ID and its extension.
    static func serviceExtension(_ text: String) throws -> (app: String, ServiceExtensionManifest) {
        if let (app, json) = try? appAndValue(text, option: "--extension"), json.hasPrefix("{") {
            do {
                return (app, try JSONDecoder().decode(ServiceExtensionManifest.self, from: Data(json.utf8)))
            } catch {
                throw ValidationError("--extension \(app): the manifest is not a service extension manifest (\(error))")
            }
        }
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 3, let kind = ExtensionKind(rawValue: parts[2]) else {
            throw ValidationError("--extension takes APP:EXTENSION:KIND with KIND one of \(ExtensionKind.allCases.map(\.rawValue).joined(separator: ", ")); got \(text)")
        }
        return (parts[0], ServiceExtensionManifest(bundleID: parts[1], kind: kind))
    }

    /// `APP:VALUE` → the two parts (the value may hold colons).
    static func appAndValue(_ text: String, option: String) throws -> (String, String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw ValidationError("\(option) takes APP:VALUE; got \(text)")
        }
        return (parts[0], parts[1])
    }

    /// `com.example.app:development` → a correctly signed manifest.
    /// `--app BUNDLE:ENVIRONMENT`, signed by `team` or, when `--declared` declares the app, by its team, and taking
    /// its declaration whole.
    static func manifest(_ text: String, team: String, declarations: [String: World.App] = [:]) throws -> AppManifest {
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 2, let environment = APNsEnvironment(rawValue: parts[1]) else {
            throw ValidationError("--app takes BUNDLE:ENVIRONMENT, such as com.example.app:development; got \(text)")
        }
        var manifest = AppManifest.installed(bundleID: parts[0], environment: environment, declared: declarations[parts[0]],
                                             team: team, now: Date())
        manifest.resources = manifest.resources.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        return manifest
    }

    /// `--declared`: the apps as a world file declares them, by bundle ID; a mistake in one is a sentence naming it.
    static func declarations(_ json: String?) throws -> [String: World.App] {
        guard let json else { return [:] }
        let apps: [World.App]
        do {
            apps = try JSONDecoder().decode([World.App].self, from: Data(json.utf8))
        } catch {
            throw ValidationError("--declared is not a JSON array of apps as a world file declares them ({\"bundleID\", \"team\", …}): \(error)")
        }
        for app in apps {
            if let problem = NotificationCategory.problems(app.categories ?? []).first {
                throw ValidationError("--declared, app \(app.bundleID): \(problem)")
            }
        }
        return Dictionary(apps.map { ($0.bundleID, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// `--activity-budget N` or `N:FREQUENT`; 0 turns throttling off.
    static func parseActivityBudget(_ text: String) throws -> ActivityBudget? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(parts.count), let perHour = parts[0], perHour >= 0, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            throw ValidationError("--activity-budget is PER_HOUR or PER_HOUR:PER_HOUR_WITH_FREQUENT_UPDATES, whole numbers from 0; got \(text)")
        }
        guard perHour > 0 else { return nil }
        return ActivityBudget(perHour: perHour, frequentPerHour: parts.count == 2 ? parts[1]! : max(perHour, ActivityBudget().frequentPerHour))
    }
}

/// Device hosts as a service: each prints its apps' tokens once registered; all stop on graceful shutdown.
private struct DeviceService: Service {
    let hosts: [DeviceHost]
    let logger: Logger

    /// Every link, connecting or connected, is cancelled on graceful shutdown: a device that never reaches its
    /// gateway must stop on Ctrl-C as promptly as one that did.
    func run() async throws {
        try await cancelWhenGracefulShutdown { try await runHosts() }
    }

    private func runHosts() async throws {
        for host in hosts { host.whenRegistered { report(host) } }
        try await DeviceHostGroup.run(hosts, logger: logger)
    }

    /// Each app's token, or why it did not install.
    private func report(_ host: DeviceHost) {
        let id = host.configuration.device.id
        for (bundleID, token) in host.tokens.sorted(by: { $0.key < $1.key }) {
            Console.say("device \(id): \(bundleID) registered, token \(token.hex)")
        }
        for (bundleID, refusal) in host.refusals.sorted(by: { $0.key < $1.key }) {
            Console.say("device \(id): \(bundleID) not installed: \(refusal)")
        }
    }
}
