import APNSimRules
import Foundation

/// The kind `swift` extensions of one device: each source built once (at install, or at its first push), and each
/// app's extension given an app-bundle folder of its own, so `Bundle.main` finds the app's resources.
actor SwiftExtensions {
    let builder: SwiftExtensionBuilder
    /// Where each app's bundle folder goes.
    let bundles: URL
    private var builds: [String: Task<Result<SwiftExtensionBuilder.Product, ExtensionError>, Never>] = [:]

    init(builder: SwiftExtensionBuilder, bundles: URL) {
        self.builder = builder
        self.bundles = bundles
    }

    /// Builds the manifest's `source` to run its principal class, with its modules (again if a file changed since);
    /// the compiler's messages when it does not build.
    func build(_ manifest: ServiceExtensionManifest) async -> Result<SwiftExtensionBuilder.Product, ExtensionError> {
        let builder = self.builder
        let task = Task { () -> Result<SwiftExtensionBuilder.Product, ExtensionError> in
            do throws(ExtensionError) {
                return .success(try await builder.build(manifest.source ?? "", principalClass: manifest.principalClass, modules: manifest.modules))
            } catch {
                return .failure(error)
            }
        }
        builds[Self.key(manifest)] = task
        return await task.value
    }

    /// What decides a build: the source, the class it runs and the modules it imports.
    private static func key(_ manifest: ServiceExtensionManifest) -> String {
        ([manifest.source ?? "", manifest.principalClass ?? ""] + manifest.modules.map { "\($0.name)=\($0.source)" }).joined(separator: "\u{1F}")
    }

    /// The command that starts app `bundleID`'s extension built from the manifest: its executable, linked into the app's
    /// bundle folder beside the app's resources.
    func command(_ manifest: ServiceExtensionManifest, app bundleID: String, resources: URL?) async -> Result<[String], ExtensionError> {
        let built: Result<SwiftExtensionBuilder.Product, ExtensionError>
        if let building = builds[Self.key(manifest)] {
            built = await building.value
        } else {
            built = await build(manifest)
        }
        return built.flatMap { product in
            Result { try Self.bundle(product, of: manifest, app: bundleID, resources: resources, in: bundles) }
                .mapError { ExtensionError("cannot make the app bundle folder of \(bundleID)'s extension: \($0.localizedDescription)") }
                .map { [$0.path] }
        }
    }

    /// Links the executable and the app's resources into one folder, with the extension's `Info.plist`: on Linux
    /// `Bundle.main` is the executable's folder (it follows a symbolic link to the executable, so that one is a hard
    /// link, or a copy across disks) and reads an `Info.plist` beside it, so `Bundle.main.bundleIdentifier` is the
    /// extension's and `infoDictionary` has its `NSExtension` keys, as on iOS.
    static func bundle(_ product: SwiftExtensionBuilder.Product, of manifest: ServiceExtensionManifest, app bundleID: String,
                       resources: URL?, in bundles: URL) throws -> URL {
        let folder = bundles.appendingPathComponent(bundleID)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let executable = folder.appendingPathComponent(product.principalClass)
        do {
            try FileManager.default.linkItem(at: product.executable, to: executable)
        } catch {
            try FileManager.default.copyItem(at: product.executable, to: executable)
        }
        try infoPlist(of: manifest, principalClass: product.principalClass).write(to: folder.appendingPathComponent("Info.plist"))
        if let resources, let names = try? FileManager.default.contentsOfDirectory(atPath: resources.path) {
            for name in names where name != product.principalClass && name != "Info.plist" {
                try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name),
                                                           withDestinationURL: resources.appendingPathComponent(name))
            }
        }
        return executable
    }

    /// The extension's Info.plist as Xcode writes it for a notification service extension: the team's own
    /// `Info.plist` beside its source when it has one (its keys kept, such as an SDK's App Group name, with Xcode's
    /// build settings filled in: `$(PRODUCT_MODULE_NAME)` is the module apnsim builds the team's files as), and the
    /// bundle's identity, extension point and principal class from the manifest.
    static func infoPlist(of manifest: ServiceExtensionManifest, principalClass: String) throws -> Data {
        let settings = ["PRODUCT_MODULE_NAME": "NotificationServiceExtension", "PRODUCT_BUNDLE_IDENTIFIER": manifest.bundleID,
                        "EXECUTABLE_NAME": principalClass, "PRODUCT_NAME": principalClass, "DEVELOPMENT_LANGUAGE": "en",
                        "PRODUCT_BUNDLE_PACKAGE_TYPE": "XPC!", "MARKETING_VERSION": "1.0", "CURRENT_PROJECT_VERSION": "1"]
        // A broken Info.plist already stopped the build (the principal class is read from it), so none is read here.
        let team = manifest.source.flatMap { try? SwiftExtensionBuilder.teamInfoPlist(of: $0) }
            .map { substituting(settings, in: $0.0) as? [String: Any] ?? [:] } ?? [:]
        var attributes = ((team["NSExtension"] as? [String: Any])?["NSExtensionAttributes"] as? [String: Any]) ?? [:]
        if !manifest.categories.isEmpty { attributes["UNNotificationExtensionCategory"] = manifest.categories }
        var ext = (team["NSExtension"] as? [String: Any]) ?? [:]
        ext["NSExtensionPointIdentifier"] = manifest.extensionPoint
        ext["NSExtensionPrincipalClass"] = "NotificationServiceExtension.\(principalClass)"
        ext["NSExtensionAttributes"] = attributes.isEmpty ? nil : attributes
        let defaults: [String: Any] = ["CFBundleName": principalClass, "CFBundleVersion": "1", "CFBundleShortVersionString": "1.0"]
        let identity: [String: Any] = ["CFBundleIdentifier": manifest.bundleID, "CFBundleExecutable": principalClass,
                                       "CFBundlePackageType": "XPC!", "MinimumOSVersion": manifest.deploymentTarget ?? "15.0",
                                       "NSExtension": ext]
        let plist = defaults.merging(team) { $1 }.merging(identity) { $1 }
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    }

    /// `value` with each `$(SETTING)` (or `${SETTING}`) Xcode would fill in replaced; others are left as they are.
    static func substituting(_ settings: [String: String], in value: Any) -> Any {
        switch value {
        case let text as String:
            return settings.reduce(text) { $0.replacingOccurrences(of: "$(\($1.key))", with: $1.value)
                .replacingOccurrences(of: "${\($1.key)}", with: $1.value) }
        case let array as [Any]:
            return array.map { substituting(settings, in: $0) }
        case let dictionary as [String: Any]:
            return dictionary.mapValues { substituting(settings, in: $0) }
        default:
            return value
        }
    }
}

