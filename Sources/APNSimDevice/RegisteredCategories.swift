import APNSimCore
import Foundation

/// The notification categories each app on one device registered, which decide the buttons its notifications show.
/// An app registers its manifest's `categories` when the device host starts it (as an app does at launch); its service
/// extension may replace them (`setNotificationCategories(_:)`); uninstalling removes them. Kept across restarts as
/// iOS keeps them (an app whose manifest names none keeps what its extension registered): saved as JSON in the
/// device's data folder when it has one.
struct RegisteredCategories: Sendable {
    private var byApp: [String: [NotificationCategory]]
    private let file: URL?

    init(directory: String?) {
        file = directory.map { URL(fileURLWithPath: $0).appendingPathComponent("categories.json") }
        byApp = file.flatMap { try? Data(contentsOf: $0) }
            .flatMap { try? JSONDecoder().decode([String: [NotificationCategory]].self, from: $0) } ?? [:]
    }

    subscript(bundleID: String) -> [NotificationCategory] { byApp[bundleID] ?? [] }

    /// `setNotificationCategories(_:)`: the app's categories are these, and only these.
    mutating func set(_ categories: [NotificationCategory], for bundleID: String) {
        byApp[bundleID] = categories
        save()
    }

    mutating func uninstall(_ bundleID: String) {
        guard byApp.removeValue(forKey: bundleID) != nil else { return }
        save()
    }

    private func save() {
        guard let file else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? JSONEncoder().encode(byApp).write(to: file, options: .atomic)
    }
}
