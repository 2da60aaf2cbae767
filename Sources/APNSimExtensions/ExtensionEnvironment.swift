import APNSimRules
import Foundation

/// What an extension process finds in its environment about the app it is embedded in, standing for the entitlements
/// and containers iOS gives it (docs/own-extensions.md, "App Groups"):
///
/// - `APNSIM_APP_GROUPS`: a JSON object from each App Group both the extension's and the app's
///   `com.apple.security.application-groups` entitlements list to its shared container, a folder of the device's
///   data (`app-groups/GROUP`) that outlives the process, as iOS keeps it. apnsim's UserNotifications answers
///   `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` from it.
/// - `APNSIM_APP_GROUPS_NOT_SHARED`: a JSON list of the groups the extension lists and the app does not. On iOS the
///   extension would get a container the app never sees; apnsim answers `nil` and logs why, so the mistake shows.
/// - `XDG_CONFIG_HOME`: where Linux's Foundation keeps `UserDefaults`, the standard ones and each
///   `UserDefaults(suiteName:)` suite: a folder of the device's data per app (`preferences/APP`), kept across
///   pushes and restarts.
struct ExtensionEnvironment: Sendable {
    var variables: [String: String]

    init(app: AppManifest, extension manifest: ServiceExtensionManifest, dataDirectory: URL) {
        let appGroups = Set(app.appGroups ?? [])
        let shared = manifest.appGroups.filter(appGroups.contains)
        var containers: [String: String] = [:]
        for group in shared {
            let folder = dataDirectory.appendingPathComponent("app-groups").appendingPathComponent(group)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            containers[group] = folder.path
        }
        let preferences = dataDirectory.appendingPathComponent("preferences").appendingPathComponent(app.bundleID)
        try? FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
        variables = [
            "APNSIM_APP_GROUPS": Self.json(containers),
            "APNSIM_APP_GROUPS_NOT_SHARED": Self.json(manifest.appGroups.filter { !appGroups.contains($0) }),
            "XDG_CONFIG_HOME": preferences.path,
        ]
    }

    private static func json(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
