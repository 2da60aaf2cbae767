import APNSimCore
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

    /// The extension's Info.plist as Xcode writes it for a notification service extension, `$(PRODUCT_MODULE_NAME)`
    /// being the module apnsim builds the team's files as.
    static func infoPlist(of manifest: ServiceExtensionManifest, principalClass: String) throws -> Data {
        var attributes: [String: Any] = [:]
        if !manifest.categories.isEmpty { attributes["UNNotificationExtensionCategory"] = manifest.categories }
        var ext: [String: Any] = ["NSExtensionPointIdentifier": manifest.extensionPoint,
                                  "NSExtensionPrincipalClass": "NotificationServiceExtension.\(principalClass)"]
        if !attributes.isEmpty { ext["NSExtensionAttributes"] = attributes }
        let plist: [String: Any] = ["CFBundleIdentifier": manifest.bundleID, "CFBundleExecutable": principalClass,
                                    "CFBundleName": principalClass, "CFBundlePackageType": "XPC!", "CFBundleVersion": "1",
                                    "CFBundleShortVersionString": "1.0", "MinimumOSVersion": manifest.deploymentTarget ?? "15.0",
                                    "NSExtension": ext]
        return try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    }
}

