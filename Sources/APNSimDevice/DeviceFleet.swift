import APNSimRules
import Foundation
import Logging
import NIOSSL

/// One process's simulated devices: who they are, the gateways they link to, their apps, and the settings of iOS they
/// run with. What `apnsim device` runs, read from its flags or from a file (`--config FILE`, JSON), and what a sandbox
/// starts, in its own process or in `apnsim device` processes: one type, whose defaults are written once, here
/// (docs/devices.md, "A fleet in a file").
public struct DeviceFleet: Sendable, Hashable {
    /// A gateway's device link.
    public struct Gateway: Sendable, Hashable, Codable {
        public var host: String
        public var port: Int

        public init(host: String = "127.0.0.1", port: Int = 5223) {
            self.host = host
            self.port = port
        }
    }

    /// An app installed on each device of the fleet.
    public struct App: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: APNsEnvironment
        /// `false`: the user turned the app's alerts off in Settings, and iOS starts no service extension for it.
        public var alerts: Bool
        /// The app as a world file declares it (its team, service extension, resources, categories…), taken whole; `nil`:
        /// an app signed by the fleet's team with nothing more.
        public var declared: World.App?

        public init(bundleID: String, environment: APNsEnvironment, alerts: Bool = true, declared: World.App? = nil) {
            self.bundleID = bundleID
            self.environment = environment
            self.alerts = alerts
            self.declared = declared
        }
    }

    /// The device's ID, stable across restarts; with ``count`` above 1, the devices are `ID-1` … `ID-N`.
    public var id = "iphone-1"
    public var name = "apnsim iPhone"
    /// How many devices the process runs.
    public var count = 1
    /// How many links to the gateway the devices share (at most one per device); 0 gives each device its own.
    public var links = 4
    public var model = DeviceDescriptor.defaultModel
    public var os = DeviceDescriptor.defaultOS
    /// The gateways the devices link to: one, or the replicas of a cluster (each device, or shared link, to its home
    /// replica among them, the next when that one does not answer; docs/cluster.md).
    public var gateways = [Gateway()]
    public var apps = [App(bundleID: "com.example.app", environment: .development)]
    /// The team an app is signed with when its declaration names none.
    public var team = "SIMTEAM001"
    /// The folder of the device identity and the CA (`Certs/generate.sh`'s files); `nil`: `apnsim device`'s `--certs`,
    /// else the development files (a checkout's `Certs`, or the ones built into apnsim).
    public var certs: String?
    /// Where the devices keep their identity (their apps' installation IDs, so their tokens stay across restarts);
    /// `nil`: `apnsim device` keeps it in apnsim's per-user data folder. With several devices, a folder for each inside it.
    public var data: String?
    /// Keep nothing: every start is a new device with new tokens (``data`` is then not read).
    public var ephemeral = false
    /// Seconds a service extension has for each push (Apple: about 30).
    public var extensionBudget = 30.0
    /// Seconds `serviceExtensionTimeWillExpire` has to hand something over.
    public var extensionGrace = 2.0
    /// Skip a service extension for a push whose category is not among its `UNNotificationExtensionCategory`.
    public var extensionCategoriesApply = false
    /// Seconds one attempt to reach the gateway may take before the device backs off and tries again.
    public var connectTimeout = 3.0
    /// Background pushes that may wake an app per hour (Apple: two or three); 0 lifts the limit.
    public var backgroundBudget = 3
    /// Notifications of each app a device keeps shown, newest first.
    public var notificationLimit = NotificationList().displayedLimit
    /// Priority-10 Live Activity updates an app may have per hour; `nil`: no limit.
    public var activityBudget: ActivityBudget? = ActivityBudget()
    /// Apps in the foreground, with what their willPresent handler returns (`banner`, `list`, `sound`, `badge`).
    public var foreground: [String: [String]] = [:]
    /// For testing delivery guarantees: drop the link on this many pushes before answering them.
    public var dropLinkBeforeAck = 0

    public init() {}

    /// The most devices one process runs.
    public static let mostDevices = World.mostFleetDevices
    /// The most devices one process runs with a link each: each takes a file descriptor on either side.
    public static let mostDevicesWithOwnLinks = 10_000
    /// The most links one process's devices share.
    public static let mostLinks = 64

    /// What is wrong with the fleet, one sentence each (``hosts(certs:tlsContext:group:clock:logger:now:)`` refuses it),
    /// each setting named by `spelling` (a file's key, as it is; `apnsim device` spells its flags).
    public func problems(spelling: (String) -> String = { $0 }) -> [String] {
        var problems: [String] = []
        let (count, links) = (spelling("count"), spelling("links"))
        if !(1...Self.mostDevices).contains(self.count) { problems.append("\(count) takes 1 to \(Self.mostDevices); got \(self.count)") }
        if !(0...Self.mostLinks).contains(self.links) { problems.append("\(links) takes 0 (a link per device) to \(Self.mostLinks); got \(self.links)") }
        if self.links == 0, self.count > Self.mostDevicesWithOwnLinks {
            problems.append("\(count) \(self.count) with \(links) 0 would open a link per device, a file descriptor each on this side and the "
                            + "gateway's; up to \(Self.mostDevicesWithOwnLinks) devices have their own links, more share them (\(links) 1 or more)")
        }
        if gateways.isEmpty { problems.append("\(spelling("gateways")) names none; give one {\"host\", \"port\"}") }
        for gateway in gateways where gateway.host.isEmpty || !(1...65535).contains(gateway.port) {
            problems.append("\(spelling("gateways")): \(gateway.host):\(gateway.port) is not a host and a port of 1 to 65535")
        }
        for (key, seconds, range) in [("extensionBudget", extensionBudget, 0.1...600), ("connectTimeout", connectTimeout, 0.1...600),
                                      ("extensionGrace", extensionGrace, 0...600)] where !(seconds.isFinite && range.contains(seconds)) {
            problems.append("\(spelling(key)) takes \(range.lowerBound == 0 ? "0" : "0.1") to 600 seconds; got \(seconds)")
        }
        if notificationLimit < 1 { problems.append("\(spelling("notificationLimit")) takes 1 or more notifications; got \(notificationLimit)") }
        for (app, options) in foreground.sorted(by: { $0.key < $1.key }) {
            for option in options where PresentationOption(rawValue: option) == nil {
                problems.append("foreground \(app): options are banner, list, sound, badge; got \(option)")
            }
        }
        for app in apps {
            if let problem = NotificationCategory.problems(app.declared?.categories ?? []).first { problems.append("app \(app.bundleID): \(problem)") }
        }
        return problems
    }

    /// The fleet's devices, each a host ready to run.
    /// - Parameters:
    ///   - certs: the folder of the device identity and the CA (`Certs/generate.sh`'s files).
    ///   - tlsContext: the device link's TLS context, shared by every device; `nil` makes one from `certs`.
    ///   - group: the group the devices join, when the caller has one for several fleets (a sandbox's); `nil` makes one
    ///     for this fleet when its devices share links or are several.
    public func hosts(certs: String, tlsContext: NIOSSLContext? = nil, group: DeviceHostGroup? = nil, clock: WallClock = .system,
                      logger: Logger = Logger(label: "apnsim.device"), now: Date = Date()) throws -> [DeviceHost] {
        if let problem = problems().first { throw DeviceError(problem) }
        let tls = DeviceHostConfiguration.TLSFiles.certsDirectory(certs)
        let context = try tlsContext ?? DeviceHost.makeTLSContext(tls)
        let manifests = apps.map { app in
            var manifest = AppManifest.installed(bundleID: app.bundleID, environment: app.environment, declared: app.declared, team: team, now: now)
            manifest.resources = manifest.resources.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
            return manifest
        }
        // The devices of one process form a group: they share links (unless `links` is 0), and a broadcast for several
        // of them comes on one link. A fleet keeps its devices' data in one file (`devices.json` in `data`).
        let group = group ?? (count > 1 || links > 0
            ? DeviceHostGroup(sharedLinks: min(links, count), data: count > 1 && !ephemeral ? data.map { DeviceData.fleet(in: $0) } : nil) : nil)
        let presentation = foreground.mapValues { Set($0.compactMap(PresentationOption.init(rawValue:))) }
        return World.DeviceSpec.fleet(id: id, name: name, count: count).map { deviceID, deviceName in
            var configuration = DeviceHostConfiguration(tls: tls, device: DeviceDescriptor(id: deviceID, name: deviceName, model: model, os: os),
                                                        apps: manifests)
            configuration.gateways = gateways
            configuration.connectTimeout = .milliseconds(Int64(connectTimeout * 1000))
            configuration.dropLinkBeforeAcknowledging = dropLinkBeforeAck
            configuration.backgroundBudget = backgroundBudget > 0 ? .init(count: backgroundBudget, period: 3600) : nil
            configuration.activityBudget = activityBudget
            configuration.notificationLimit = notificationLimit
            configuration.foreground = presentation
            configuration.extensionBudget = .milliseconds(Int64(extensionBudget * 1000))
            configuration.extensionGrace = .milliseconds(Int64(extensionGrace * 1000))
            configuration.alertsOff = Set(apps.filter { !$0.alerts }.map(\.bundleID))
            configuration.extensionCategoriesApply = extensionCategoriesApply
            configuration.clock = clock
            configuration.group = group
            configuration.dataDirectory = (ephemeral ? nil : data).map { count > 1 ? URL(fileURLWithPath: $0).appendingPathComponent(deviceID).path : $0 }
            return DeviceHost(configuration: configuration, logger: logger, tlsContext: context)
        }
    }
}

extension DeviceFleet: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, count, links, model, os, gateways, apps, team, certs, data, ephemeral, extensionBudget, extensionGrace, extensionCategoriesApply
        case connectTimeout, backgroundBudget, notificationLimit, activityBudget, foreground, dropLinkBeforeAck
    }

    /// Every key may be left out (its default above); a key the fleet does not have is refused, naming it, rather than
    /// ignored: a misspelt setting would otherwise be its default without a word.
    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        if let unknown = keys.first(where: { CodingKeys(rawValue: $0) == nil }) {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription:
                "\(unknown) is not a setting of a device fleet; they are \(CodingKeys.allCases.map(\.rawValue).joined(separator: ", "))"))
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        func read<Value: Decodable>(_ key: CodingKeys, into value: inout Value) throws {
            if let read = try container.decodeIfPresent(Value.self, forKey: key) { value = read }
        }
        try read(.id, into: &id)
        try read(.name, into: &name)
        try read(.count, into: &count)
        try read(.links, into: &links)
        try read(.model, into: &model)
        try read(.os, into: &os)
        try read(.gateways, into: &gateways)
        try read(.apps, into: &apps)
        try read(.team, into: &team)
        certs = try container.decodeIfPresent(String.self, forKey: .certs)
        data = try container.decodeIfPresent(String.self, forKey: .data)
        try read(.ephemeral, into: &ephemeral)
        try read(.extensionBudget, into: &extensionBudget)
        try read(.extensionGrace, into: &extensionGrace)
        try read(.extensionCategoriesApply, into: &extensionCategoriesApply)
        try read(.connectTimeout, into: &connectTimeout)
        try read(.backgroundBudget, into: &backgroundBudget)
        try read(.notificationLimit, into: &notificationLimit)
        // An explicit null turns throttling off; absent keeps the default.
        if container.contains(.activityBudget) { activityBudget = try container.decodeIfPresent(ActivityBudget.self, forKey: .activityBudget) }
        try read(.foreground, into: &foreground)
        try read(.dropLinkBeforeAck, into: &dropLinkBeforeAck)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(count, forKey: .count)
        try container.encode(links, forKey: .links)
        try container.encode(model, forKey: .model)
        try container.encode(os, forKey: .os)
        try container.encode(gateways, forKey: .gateways)
        try container.encode(apps, forKey: .apps)
        try container.encode(team, forKey: .team)
        try container.encodeIfPresent(certs, forKey: .certs)
        try container.encodeIfPresent(data, forKey: .data)
        try container.encode(ephemeral, forKey: .ephemeral)
        try container.encode(extensionBudget, forKey: .extensionBudget)
        try container.encode(extensionGrace, forKey: .extensionGrace)
        try container.encode(extensionCategoriesApply, forKey: .extensionCategoriesApply)
        try container.encode(connectTimeout, forKey: .connectTimeout)
        try container.encode(backgroundBudget, forKey: .backgroundBudget)
        try container.encode(notificationLimit, forKey: .notificationLimit)
        try container.encode(activityBudget, forKey: .activityBudget)  // null: no limit
        try container.encode(foreground, forKey: .foreground)
        try container.encode(dropLinkBeforeAck, forKey: .dropLinkBeforeAck)
    }

    /// A fleet read from the JSON file at `path`; a mistake is one sentence naming the file.
    public static func read(from path: String) throws -> DeviceFleet {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw DeviceError("cannot read the device fleet file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(DeviceFleet.self, from: data)
        } catch let error as DecodingError {
            throw DeviceError("\(path) is not a device fleet: \(Self.sentence(error))")
        } catch {
            throw DeviceError("\(path) is not a device fleet: \(error)")
        }
    }
}

extension DeviceFleet {
    /// Where in the file, and what is wrong there.
    static func sentence(_ error: DecodingError) -> String {
        let (path, what): ([any CodingKey], String) = switch error {
        case .typeMismatch(let type, let context): (context.codingPath, "not \(named(type))")
        case .valueNotFound(let type, let context): (context.codingPath, "\(named(type)) is missing")
        case .keyNotFound(let key, let context): (context.codingPath + [key], "missing")
        case .dataCorrupted(let context): (context.codingPath, context.debugDescription)
        @unknown default: ([], "\(error)")
        }
        func named(_ type: Any.Type) -> String {
            let name = "\(type)"
            return ("AEIOU".contains(name.prefix(1)) ? "an " : "a ") + name
        }
        let place = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return place.isEmpty ? what : "\(place.hasPrefix(".") ? String(place.dropFirst()) : place): \(what)"
    }
}

/// Any key of a JSON object, to list them all.
private struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
