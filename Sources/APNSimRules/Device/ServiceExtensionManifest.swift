/// A notification service extension embedded in an app, as its Info.plist, entitlements and signature describe it,
/// and what runs it.
///
/// Apple, "UNNotificationServiceExtension",
/// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension
public struct ServiceExtensionManifest: Sendable, Hashable, Codable {
    /// The extension point of a notification service extension, its Info.plist's `NSExtensionPointIdentifier`.
    public static let serviceExtensionPoint = "com.apple.usernotifications.service"
    /// The extension point of a notification content extension: it installs, but never runs on a push.
    public static let contentExtensionPoint = "com.apple.usernotifications.content-extension"

    /// The extension's own bundle ID, the app's followed by a suffix (`com.example.app.NotificationService`).
    public var bundleID: String
    /// Which built-in extension runs in it (`auto` picks one by the payload's keys), or `executable`.
    public var kind: ExtensionKind
    /// For kind `executable`: the command and its arguments (docs/extension-protocol.md); a relative path in a
    /// world file is taken from the file's folder.
    public var executable: [String]?
    /// For kind `swift`: the extension's Swift source, a file or a folder; a relative path in a world file is taken
    /// from the file's folder.
    public var source: String?
    /// For kind `swift`: the class the extension process runs, as Info.plist's `NSExtensionPrincipalClass` names it
    /// (`NotificationService`, or Xcode's `$(PRODUCT_MODULE_NAME).NotificationService`); `nil`: the one the source's
    /// Info.plist names, else the most-derived subclass of `UNNotificationServiceExtension` in the source.
    public var principalClass: String?
    /// For kind `swift`: Swift modules the extension's source imports, such as a push vendor's extension module as
    /// Swift Package Manager checked it out; each is built under its own name, before the modules that import it.
    public var modules: [Module]
    /// The Team ID it is signed by; `nil`: the app's.
    public var team: String?
    /// The provisioning profile it is signed with; `nil`: its own explicit App ID and profile, as Xcode's automatic
    /// signing makes them.
    public var profile: ProvisioningProfile?
    /// Its Info.plist's `NSExtensionPointIdentifier`.
    public var extensionPoint: String
    /// The lowest iOS it runs on (`17.0`); `nil`: any.
    public var deploymentTarget: String?
    /// Whether the app's "Embed App Extensions" phase copies it into `PlugIns/`; iOS never finds one that is not.
    public var embedded: Bool
    /// The `com.apple.developer.usernotifications.filtering` entitlement: with it, handing over empty content
    /// suppresses the push.
    public var filtering: Bool
    /// The `com.apple.security.application-groups` entitlement: the App Groups whose shared container it may use
    /// (`group.com.example.app`), as vendor SDKs ask for. A group is shared with the app when the app lists it too.
    public var appGroups: [String]
    /// `UNNotificationExtensionCategory`. iOS ignores it for service extensions; a device can be told to apply it
    /// (`DeviceHostConfiguration.extensionCategoriesApply`).
    public var categories: [String]
    /// Seconds the extension has for each push; `nil`: the device's budget (30 s by default).
    public var budget: Double?
    /// What it may hold before iOS kills it, in MiB (24 by default, the figure reported for recent iOS).
    public var memoryLimitMiB: Int

    public init(bundleID: String, kind: ExtensionKind, team: String? = nil, profile: ProvisioningProfile? = nil,
                extensionPoint: String = serviceExtensionPoint, deploymentTarget: String? = nil, embedded: Bool = true,
                filtering: Bool = false, appGroups: [String] = [], categories: [String] = [], budget: Double? = nil,
                memoryLimitMiB: Int = 24, executable: [String]? = nil, source: String? = nil, principalClass: String? = nil,
                modules: [Module] = []) {
        self.bundleID = bundleID
        self.kind = kind
        self.executable = executable
        self.source = source
        self.principalClass = principalClass
        self.modules = modules
        self.team = team
        self.profile = profile
        self.extensionPoint = extensionPoint
        self.deploymentTarget = deploymentTarget
        self.embedded = embedded
        self.filtering = filtering
        self.appGroups = appGroups
        self.categories = categories
        self.budget = budget
        self.memoryLimitMiB = memoryLimitMiB
    }

    enum CodingKeys: String, CodingKey {
        case bundleID, kind, team, profile, extensionPoint, deploymentTarget, embedded, filtering, appGroups = "appGroup", categories, budget,
             memoryLimitMiB, executable, source, principalClass, modules
    }

    /// A Swift module an extension imports: its name (what `import` says) and its source, a folder of Swift files
    /// (`.build/checkouts/vendor-sdk/Sources/VendorNotificationServiceExtension`) or one file.
    /// A Swift module the extension imports: a folder of Swift files built under `name` (`{name, source}`), or a
    /// library product of a Swift package (`{package, product}`), whose targets apnsim builds as modules each.
    public struct Module: Sendable, Hashable, Codable {
        /// The module's name; for a package, the product's.
        public var name: String
        /// The module's folder (or file); for a package, the package's folder.
        public var source: String
        /// `true`: `source` is a Swift package and `name` one of its library products.
        public var isPackageProduct: Bool

        public init(name: String, source: String) {
            (self.name, self.source, self.isPackageProduct) = (name, source, false)
        }

        public init(package: String, product: String) {
            (self.name, self.source, self.isPackageProduct) = (product, package, true)
        }

        enum CodingKeys: String, CodingKey {
            case name, source, package, product
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let package = try container.decodeIfPresent(String.self, forKey: .package) {
                self.init(package: package, product: try container.decode(String.self, forKey: .product))
            } else {
                self.init(name: try container.decode(String.self, forKey: .name), source: try container.decode(String.self, forKey: .source))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: isPackageProduct ? .product : .name)
            try container.encode(source, forKey: isPackageProduct ? .package : .source)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(bundleID: try container.decode(String.self, forKey: .bundleID),
                  kind: try container.decode(ExtensionKind.self, forKey: .kind),
                  team: try container.decodeIfPresent(String.self, forKey: .team),
                  profile: try container.decodeIfPresent(ProvisioningProfile.self, forKey: .profile),
                  extensionPoint: try container.decodeIfPresent(String.self, forKey: .extensionPoint) ?? Self.serviceExtensionPoint,
                  deploymentTarget: try container.decodeIfPresent(String.self, forKey: .deploymentTarget),
                  embedded: try container.decodeIfPresent(Bool.self, forKey: .embedded) ?? true,
                  filtering: try container.decodeIfPresent(Bool.self, forKey: .filtering) ?? false,
                  appGroups: try Self.oneOrMany(container, .appGroups),
                  categories: try Self.oneOrMany(container, .categories),
                  budget: try container.decodeIfPresent(Double.self, forKey: .budget),
                  memoryLimitMiB: try container.decodeIfPresent(Int.self, forKey: .memoryLimitMiB) ?? 24,
                  executable: try container.decodeIfPresent([String].self, forKey: .executable),
                  source: try container.decodeIfPresent(String.self, forKey: .source),
                  principalClass: try container.decodeIfPresent(String.self, forKey: .principalClass),
                  modules: try container.decodeIfPresent([Module].self, forKey: .modules) ?? [])
        guard (kind == .executable) == !(executable ?? []).isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .executable, in: container,
                                                   debugDescription: "kind executable takes an executable (a command and its arguments), and only it does")
        }
        guard (kind == .swift) == !(source ?? "").isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .source, in: container,
                                                   debugDescription: "kind swift takes a source (a Swift file or a folder of them), and only it does")
        }
        if !modules.isEmpty && kind != .swift {
            throw DecodingError.dataCorruptedError(forKey: .modules, in: container,
                                                   debugDescription: "modules are Swift modules a kind swift extension imports, and only it takes them")
        }
        for module in modules where !Self.isModuleName(module.name) || ["UserNotifications", "CoreGraphics", "NotificationServiceExtension"].contains(module.name) {
            throw DecodingError.dataCorruptedError(forKey: .modules, in: container,
                                                   debugDescription: "modules: \(module.name) is not a name a module of the extension's own may have (letters, digits and _, not apnsim's UserNotifications or CoreGraphics)")
        }
        if principalClass != nil && kind != .swift {
            throw DecodingError.dataCorruptedError(forKey: .principalClass, in: container,
                                                   debugDescription: "principalClass names the class of a kind swift extension, and only it takes one")
        }
        if let budget, !(budget.isFinite && (0.1...600).contains(budget)) {
            throw DecodingError.dataCorruptedError(forKey: .budget, in: container, debugDescription: "budget takes 0.1 to 600 seconds; got \(budget)")
        }
        guard (1...4096).contains(memoryLimitMiB) else {
            throw DecodingError.dataCorruptedError(forKey: .memoryLimitMiB, in: container,
                                                   debugDescription: "memoryLimitMiB takes 1 to 4096; got \(memoryLimitMiB)")
        }
    }

    /// A Swift identifier: what `import` can name.
    static func isModuleName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// `UNNotificationExtensionCategory` is a string or an array of strings in an Info.plist; both are taken.
    /// A key that takes a string or a list of them.
    private static func oneOrMany(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> [String] {
        if let one = try? container.decodeIfPresent(String.self, forKey: key) { return [one] }
        return try container.decodeIfPresent([String].self, forKey: key) ?? []
    }

    /// What the device has set for the app, which decides whether iOS starts the extension.
    public struct DeviceSettings: Sendable, Hashable {
        /// The app's notification settings allow alerts.
        public var alertsEnabled = true
        /// Skip the extension when the push's category is not among its `categories` (iOS ignores them).
        public var categoriesApply = false
        public init(alertsEnabled: Bool = true, categoriesApply: Bool = false) {
            self.alertsEnabled = alertsEnabled
            self.categoriesApply = categoriesApply
        }
    }

    /// Why iOS would not start this extension for an alert push, in the words of the delivery record, or `nil` when
    /// it would. iOS says nothing in these cases; apnsim says why (Apple, "Modifying content in newly delivered
    /// notifications": the push must be a mutable-content alert with text, and alerts must be allowed).
    public func reasonNotLaunched(payload: PushPayload, deviceOS: String, settings: DeviceSettings = .init()) -> String? {
        guard payload.mutableContent else { return "extension not launched: the push has no \"mutable-content\": 1 in aps" }
        guard payload.content.hasVisibleAlert else {
            return "extension not launched: the push shows no alert text (a badge or sound alone never reaches it)"
        }
        guard settings.alertsEnabled else {
            return "extension not launched: alerts are off for the app in the device's notification settings"
        }
        guard embedded else {
            return "extension not launched: \(bundleID) is not embedded in the app (its Embed App Extensions phase)"
        }
        guard extensionPoint == Self.serviceExtensionPoint else {
            return "extension not launched: \(bundleID) has NSExtensionPointIdentifier \(extensionPoint), not \(Self.serviceExtensionPoint)"
        }
        if let deploymentTarget, let device = Self.version(deviceOS), let target = Self.version(deploymentTarget),
           device.lexicographicallyPrecedes(target) {
            return "extension not launched: its deployment target \(deploymentTarget) is above the device's \(Self.versionText(deviceOS))"
        }
        if settings.categoriesApply, !categories.isEmpty, !categories.contains(payload.content.category ?? "") {
            let category = payload.content.category.map { "category \($0)" } ?? "no category"
            return "extension not launched: the push has \(category), not one of its UNNotificationExtensionCategory \(categories.joined(separator: ", ")) (the device applies them)"
        }
        return nil
    }

    /// `iOS 16.4` or `17.0.1` → [16, 4] / [17, 0, 1], padded to three parts so 17 and 17.0 compare equal.
    static func version(_ text: String) -> [Int]? {
        let numbers = versionText(text).split(separator: ".").map { Int($0) }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
        return Array((numbers.compactMap { $0 } + [0, 0, 0]).prefix(3))
    }

    static func versionText(_ text: String) -> String {
        String(text.drop { !$0.isNumber })
    }
}
