// App Group containers for extensions built on Linux, whose Foundation has no
// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` (docs/own-extensions.md, "App Groups").
// Apple, "containerURL(forSecurityApplicationGroupIdentifier:)",
// https://developer.apple.com/documentation/foundation/filemanager/containerurl(forsecurityapplicationgroupidentifier:)
#if !canImport(Darwin)
import Foundation

extension FileManager {
    /// The shared container of an App Group that both the extension's and the app's entitlements list: a folder of
    /// the device's data that outlives the extension process. `nil` for any other group, as iOS answers for a group
    /// the process is not entitled to; apnsim says why in the extension's log.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        AppGroups.container(groupIdentifier)
    }
}

/// The containers the device gave this extension process (`APNSIM_APP_GROUPS`, `APNSIM_APP_GROUPS_NOT_SHARED`).
enum AppGroups {
    static let containers: [String: String] = decoded("APNSIM_APP_GROUPS") ?? [:]
    static let notShared: [String] = decoded("APNSIM_APP_GROUPS_NOT_SHARED") ?? []
    nonisolated(unsafe) private static var explained: Set<String> = []  // touched only under `lock`
    private static let lock = NSLock()

    static func container(_ group: String) -> URL? {
        if let path = containers[group] { return URL(fileURLWithPath: path, isDirectory: true) }
        guard lock.withLock({ explained.insert(group).inserted }) else { return nil }
        if notShared.contains(group) {
            print("apnsim: containerURL(forSecurityApplicationGroupIdentifier: \"\(group)\") is nil: the extension's App Groups "
                  + "list \(group) and the app's do not, so nothing written there would reach the app; add it to the app's "
                  + "com.apple.security.application-groups entitlement too")
        } else {
            print("apnsim: containerURL(forSecurityApplicationGroupIdentifier: \"\(group)\") is nil: the extension's "
                  + "com.apple.security.application-groups entitlement does not list \(group)")
        }
        return nil
    }

    /// Writes what the extension set in `UserDefaults` to disk: the standard defaults and each App Group's suite.
    /// iOS keeps defaults promptly; Linux's Foundation writes them at `synchronize()`, which an extension ended by
    /// SIGTERM (a restart, an expiry) would never reach. Called when the extension hands its content over.
    static func synchronizeDefaults() {
        _ = UserDefaults.standard.synchronize()
        for group in Set(containers.keys).union(notShared) { _ = UserDefaults(suiteName: group)?.synchronize() }
    }

    private static func decoded<T: Decodable>(_ name: String) -> T? {
        ProcessInfo.processInfo.environment[name].flatMap { try? JSONDecoder().decode(T.self, from: Data($0.utf8)) }
    }
}
#endif
