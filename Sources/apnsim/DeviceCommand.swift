import APNSimRules
import APNSimDevice
import APNSimSandbox
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle

/// `apnsim device`: one simulated device in this process, linked to a gateway, until Ctrl-C.
struct DeviceCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Run a simulated device: it installs its apps, registers them and shows the pushes it gets."
    )

    @Option(help: "A device fleet in a JSON file: the devices, their apps and settings, and the gateway they link to (docs/devices.md, \"A fleet in a file\"). The flags that describe devices are then not given; --certs (when the file names none), the log options and --stop-when-stdin-closes still are.")
    var config: String?

    @Option(help: "Device ID, stable across restarts; names the device in the control API. {host} in it is this machine's host name (a container's: dev-{host} names each replica's devices apart). Environment: APNSIM_DEVICE_ID.")
    var id = EnvironmentVariables.text("APNSIM_DEVICE_ID", otherwise: DeviceCommand.defaults.id)

    @Option(help: "How many devices to run in this process (for load); they are named ID-1 … ID-N. Environment: APNSIM_DEVICE_COUNT.")
    var count = EnvironmentVariables.whole("APNSIM_DEVICE_COUNT", option: "--count", in: 1...DeviceCommand.mostDevices,
                                           what: "a number of devices, 1 to \(DeviceCommand.mostDevices)", otherwise: 1)

    @Option(help: "How many links to the gateway the devices of this process share (at most one per device); 0 gives each device a link of its own, as a phone has: its own TLS session, and link faults that close its TCP connection. Environment: APNSIM_DEVICE_LINKS.")
    var links = EnvironmentVariables.whole("APNSIM_DEVICE_LINKS", option: "--links", in: 0...DeviceCommand.mostLinks,
                                           what: "a number of links, 0 (one per device) to \(DeviceCommand.mostLinks)", otherwise: DeviceCommand.defaults.links)

    @Option(help: "Device name.")
    var name = DeviceCommand.defaults.name

    @Option(help: "Model identifier.")
    var model = DeviceCommand.defaults.model

    @Option(help: "OS version.")
    var os = DeviceCommand.defaults.os

    @Option(name: .customLong("app"), help: "An installed app, BUNDLE:ENVIRONMENT (repeat for more).")
    var apps = DeviceCommand.defaults.apps.map { "\($0.bundleID):\($0.environment.rawValue)" }

    @Option(name: .customLong("declared"), help: "The apps as a world file or POST /v1/apps declares them, a JSON array ([{\"bundleID\", \"team\", \"serviceExtension\", \"resources\", \"categories\", \"appGroups\", \"activityTypes\", \"infoPlist\"}]): an app --app installs takes its declaration whole and is signed by its team (what apnsim up passes); the options for one part of an app change that part after it.")
    var declared: String?

    @Option(name: .customLong("extension"), help: "A notification service extension an app embeds, APP:EXTENSION:KIND, such as com.example.app:com.example.app.NotificationService:braze (kinds: \(ExtensionKind.allCases.map(\.rawValue).joined(separator: ", "))), or APP:{JSON} with a whole manifest as in a world file; repeatable.")
    var extensions: [String] = []

    @Option(name: .customLong("extension-budget"), help: "Seconds a service extension has for each push (Apple: about 30).")
    var extensionBudget = DeviceCommand.defaults.extensionBudget

    @Option(name: .customLong("extension-grace"), help: "Seconds serviceExtensionTimeWillExpire has to hand something over.")
    var extensionGrace = DeviceCommand.defaults.extensionGrace

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
    var team = DeviceCommand.defaults.team

    @Option(name: .customLong("gateway-host"), help: "Host of the gateway's device link. Environment: APNSIM_GATEWAY_HOST.")
    var gatewayHost = EnvironmentVariables.text("APNSIM_GATEWAY_HOST", otherwise: DeviceCommand.defaults.gateways[0].host)

    @Option(name: .customLong("device-port"), help: "Port of the gateway's device link. Environment: APNSIM_DEVICE_PORT.")
    var devicePort = EnvironmentVariables.port("APNSIM_DEVICE_PORT", option: "--device-port", otherwise: DeviceCommand.defaults.gateways[0].port)

    @Option(name: .customLong("gateway"), help: "A gateway replica's device link, HOST:PORT; repeatable. Each device links to one of them (its home replica, the next when it does not answer), and a name resolving to several addresses counts as several replicas (docs/cluster.md). Replaces --gateway-host and --device-port. Environment: APNSIM_GATEWAYS, comma-separated.")
    var gateways: [String] = EnvironmentVariables.value("APNSIM_GATEWAYS").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []

    @Option(name: .customLong("connect-timeout"), help: "Seconds one attempt to reach the gateway may take before the device backs off and tries again.")
    var connectTimeout = DeviceCommand.defaults.connectTimeout

    @Option(help: "The folder Certs/generate.sh wrote (ca.pem, device.pem, device-key.pem). Default: Certs in a checkout of apnsim, else the development PKI built into apnsim, written to its data folder. Environment: APNSIM_CERTS.")
    var certs: String? = EnvironmentVariables.value("APNSIM_CERTS")

    @Option(help: "Folder for the device's data (its apps' installation IDs, so its tokens stay the same across restarts, as an iPhone's do). Default: a folder named for the device ID in apnsim's per-user data folder (APNSIM_HOME; else $XDG_DATA_HOME/apnsim or ~/.local/share/apnsim on Linux, ~/Library/Application Support/apnsim on macOS).")
    var data: String?

    @Flag(help: "Keep nothing: every start is a new device with new tokens (for tests that want a fresh identity).")
    var ephemeral = false

    @Option(name: .customLong("background-budget"), help: "Background pushes that may wake an app per hour (Apple: two or three); 0 lifts the limit.")
    var backgroundBudget = DeviceCommand.defaults.backgroundBudget
    @Option(name: .customLong("notification-limit"), help: "Notifications of each app the device keeps shown, newest first; older ones leave (the record keeps every delivery).")
    var notificationLimit = DeviceCommand.defaults.notificationLimit

    @Option(name: .customLong("activity-budget"), help: "Priority-10 Live Activity updates an app may have per hour, then PER_HOUR_WITH_FREQUENT_UPDATES for an app whose Info.plist sets NSSupportsLiveActivitiesFrequentUpdates (Apple publishes no numbers; 0 turns throttling off).")
    var activityBudget = DeviceCommand.defaults.activityBudget.map { "\($0.perHour):\($0.frequentPerHour)" } ?? "0"

    @Option(name: .customLong("foreground"), help: "An app in the foreground, BUNDLE or BUNDLE:banner,list,sound,badge (what its willPresent returns; none = show nothing); repeatable.")
    var foreground: [String] = []

    @Option(name: .customLong("drop-link-before-ack"), help: "For testing delivery guarantees: drop the link on this many pushes before answering them, as a device dying mid-delivery would.")
    var dropLinkBeforeAck = 0

    @OptionGroup var log: LogOptions

    @Flag(name: .customLong("stop-when-stdin-closes"), help: "Stop when standard input ends: apnsim up starts devices this way, so they end with it however it ends.")
    var stopWhenStdinCloses = false

    /// The defaults of every flag that describes the devices: a fleet's own (``DeviceFleet``).
    static let defaults = DeviceFleet()
    static let mostDevices = DeviceFleet.mostDevices
    static let mostDevicesWithOwnLinks = DeviceFleet.mostDevicesWithOwnLinks
    static let mostLinks = DeviceFleet.mostLinks

    /// `id` with `{host}` replaced by this machine's host name: a container's, so that the replicas of one compose
    /// service or StatefulSet, started alike, name their devices apart.
    static func expandHost(in id: String) -> String {
        id.replacingOccurrences(of: "{host}", with: ProcessInfo.processInfo.hostName)
    }

    func run() async throws {
        let logger = log.logger("apnsim.device")
        var fleet = try self.fleet()
        fleet.id = Self.expandHost(in: fleet.id)
        // A device keeps its identity unless told not to: one stopped and started, as a container is, gets the pushes
        // held for its tokens while it was down.
        if !fleet.ephemeral, fleet.data == nil { fleet.data = DataHome.device(fleet.id).path }
        let certs = try DevelopmentFiles().find(.certs, given: fleet.certs ?? certs).path
        let hosts: [DeviceHost]
        do {
            hosts = try fleet.hosts(certs: certs, logger: logger)
        } catch {
            throw ValidationError("\(config.map { "\($0): " } ?? "")\(error)")
        }
        let linking = fleet.gateways.map { "\($0.host):\($0.port)" }.joined(separator: ", ")
        try await ProcessLife.run([DeviceService(hosts: hosts, logger: logger)],
                                  name: fleet.count > 1 ? "device \(fleet.id)-1…\(fleet.count)" : "device \(fleet.id)",
                                  logger: logger, stopWhenStdinCloses: stopWhenStdinCloses,
                                  started: "started, linking to \(linking); "
                                      + (fleet.ephemeral ? "a new identity (--ephemeral)" : "its identity (and so its tokens) kept in \(fleet.data ?? "")"))
    }

    /// `HOST:PORT` (`[ADDRESS]:PORT` for an IPv6 address) as a gateway, or a sentence naming it.
    static func parseGateway(_ text: String) throws -> DeviceFleet.Gateway {
        let host: Substring, port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") {
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            throw ValidationError("--gateway takes HOST:PORT ([ADDRESS]:PORT for IPv6); got \(text)")
        }
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else {
            throw ValidationError("--gateway takes HOST:PORT, a host and a port of 1 to 65535; got \(text)")
        }
        return DeviceFleet.Gateway(host: String(host), port: number)
    }

    /// The flag of a fleet's setting: `notificationLimit` is `--notification-limit`.
    static func flag(_ key: String) -> String {
        "--" + key.reduce(into: "") { flag, letter in flag += letter.isUppercase ? "-" + letter.lowercased() : String(letter) }
    }

    /// The flags that describe the devices, which `--config` replaces.
    static let fleetFlags = ["--id", "--count", "--links", "--name", "--model", "--os", "--app", "--declared", "--extension",
                             "--extension-budget", "--extension-grace", "--resources", "--categories", "--activity-types", "--info-plist",
                             "--app-group", "--alerts-off", "--extension-categories-apply", "--team", "--gateway-host", "--device-port", "--gateway",
                             "--connect-timeout", "--data", "--ephemeral", "--background-budget", "--notification-limit",
                             "--activity-budget", "--foreground", "--drop-link-before-ack"]

    /// The devices to run: the `--config` file's, or the flags'.
    func fleet() throws -> DeviceFleet {
        if let config {
            if let given = CommandLine.arguments.first(where: { argument in Self.fleetFlags.contains { argument == $0 || argument.hasPrefix($0 + "=") } }) {
                throw ValidationError("--config \(config) describes the devices; \(given.split(separator: "=")[0]) describes them too: give it in the file")
            }
            do {
                return try DeviceFleet.read(from: config)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        var fleet = DeviceFleet()
        fleet.id = id
        fleet.name = name
        fleet.count = count
        fleet.links = links
        fleet.model = model
        fleet.os = os
        if gateways.isEmpty {
            fleet.gateways = [.init(host: gatewayHost, port: devicePort)]
        } else {
            if let given = CommandLine.arguments.first(where: { $0.hasPrefix("--gateway-host") || $0.hasPrefix("--device-port") }) {
                throw ValidationError("--gateway names each gateway with its port; \(given.split(separator: "=")[0]) names one too: give one of them")
            }
            fleet.gateways = try gateways.map(Self.parseGateway)
        }
        fleet.team = team
        fleet.data = data
        fleet.ephemeral = ephemeral
        fleet.extensionBudget = extensionBudget
        fleet.extensionGrace = extensionGrace
        fleet.extensionCategoriesApply = extensionCategoriesApply
        fleet.connectTimeout = connectTimeout
        fleet.backgroundBudget = backgroundBudget
        fleet.notificationLimit = notificationLimit
        fleet.activityBudget = try Self.parseActivityBudget(activityBudget)
        fleet.foreground = presentation
        fleet.dropLinkBeforeAck = dropLinkBeforeAck
        let declarations = try Self.declarations(declared)
        fleet.apps = try apps.map { try Self.app($0, declarations: declarations, alertsOff: Set(alertsOff)) }
        // Each part of an app the flags name changes its declaration (one is made, signed by --team, for an app
        // --declared does not declare).
        try Self.apply(extensions, option: "--extension", to: &fleet, split: Self.serviceExtension) { $0.serviceExtension = $1 }
        try Self.apply(resources, option: "--resources", to: &fleet) { $0.resources = URL(fileURLWithPath: $1).standardizedFileURL.path }
        try Self.apply(appGroups, option: "--app-group", to: &fleet) { $0.appGroups = ($0.appGroups ?? []) + [$1] }
        try Self.apply(categories, option: "--categories", to: &fleet) { declared, json in
            let registered: [NotificationCategory]
            do {
                registered = try JSONDecoder().decode([NotificationCategory].self, from: Data(json.utf8))
            } catch {
                throw ValidationError("--categories for \(declared.bundleID) is not a JSON array of categories ({\"identifier\": …, \"actions\": […]}): \(error)")
            }
            if let problem = NotificationCategory.problems(registered).first {
                throw ValidationError("--categories for \(declared.bundleID): \(problem)")
            }
            declared.categories = registered
        }
        try Self.apply(activityTypes, option: "--activity-types", to: &fleet) { declared, json in
            do {
                declared.activityTypes = try JSONDecoder().decode([ActivityAttributesType].self, from: Data(json.utf8))
            } catch {
                throw ValidationError("--activity-types for \(declared.bundleID) is not a JSON array of types ({\"name\", \"attributes\", \"contentState\"}): \(error)")
            }
        }
        try Self.apply(infoPlists, option: "--info-plist", to: &fleet) { declared, json in
            guard let plist = JSONObjectSyntax.object(Array(json.utf8)) else {
                throw ValidationError("--info-plist for \(declared.bundleID) is not a JSON object: \(json)")
            }
            declared.infoPlist = plist
        }
        return fleet
    }

    /// `--foreground` as a table; a bare bundle ID means willPresent returns nothing.
    var presentation: [String: [String]] {
        Dictionary(foreground.map { entry in
            let parts = entry.split(separator: ":", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : [])
        }, uniquingKeysWith: { $1 })
    }

    func validate() throws {
        guard config == nil else { return }  // the file's fleet is checked as it is read and started
        guard !(ephemeral && data != nil) else {
            throw ValidationError("--ephemeral keeps nothing and --data names where to keep the device's identity: give one of them")
        }
        for entry in foreground {
            let parts = entry.split(separator: ":", maxSplits: 1)
            for option in parts.dropFirst().first?.split(separator: ",") ?? [] where PresentationOption(rawValue: String(option)) == nil {
                throw ValidationError("--foreground options are banner, list, sound, badge; got \(option)")
            }
        }
        // The rest of what a fleet must be, as DeviceFleet says it, each setting spelt as its flag.
        if let problem = try fleet().problems(spelling: Self.flag).first { throw ValidationError(problem) }
        for entry in resources { _ = try Self.appAndValue(entry, option: "--resources") }
        for entry in extensions { _ = try Self.serviceExtension(entry) }
    }

    /// Applies each `APP:VALUE` entry of `option` to the declaration of APP, which must be one of the `--app` apps.
    static func apply(_ entries: [String], option: String, to fleet: inout DeviceFleet,
                      _ change: (inout World.App, String) throws -> Void) throws {
        try apply(entries, option: option, to: &fleet, split: { try appAndValue($0, option: option) }, change)
    }

    /// The same, each entry read by `split` into the app and its value.
    static func apply<Value>(_ entries: [String], option: String, to fleet: inout DeviceFleet,
                             split: (String) throws -> (String, Value), _ change: (inout World.App, Value) throws -> Void) throws {
        for entry in entries {
            let (app, value) = try split(entry)
            guard let index = fleet.apps.firstIndex(where: { $0.bundleID == app }) else {
                throw ValidationError("\(option) \(entry.prefix(80)) names \(app), which is not one of the --app apps")
            }
            var declared = fleet.apps[index].declared ?? World.App(bundleID: app, team: fleet.team)
            try change(&declared, value)
            fleet.apps[index].declared = declared
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

    /// `--app BUNDLE:ENVIRONMENT`, taking its `--declared` declaration whole when there is one.
    static func app(_ text: String, declarations: [String: World.App] = [:], alertsOff: Set<String> = []) throws -> DeviceFleet.App {
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 2, let environment = APNsEnvironment(rawValue: parts[1]) else {
            throw ValidationError("--app takes BUNDLE:ENVIRONMENT, such as com.example.app:development; got \(text)")
        }
        return DeviceFleet.App(bundleID: parts[0], environment: environment, alerts: !alertsOff.contains(parts[0]), declared: declarations[parts[0]])
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
