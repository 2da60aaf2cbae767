import APNSimRules
import Foundation

/// The notification categories each app on one device registered, which decide the buttons its notifications show.
/// An app registers its manifest's `categories` when the device host starts it (as an app does at launch); its service
/// extension may replace them (`setNotificationCategories(_:)`); uninstalling removes them. Kept across restarts as
/// iOS keeps them (an app whose manifest names none keeps what its extension registered): a value its device's
/// ``DeviceData`` saves.
struct RegisteredCategories: Sendable, Hashable, Codable {
    private var byApp: [String: [NotificationCategory]]

    init(byApp: [String: [NotificationCategory]] = [:]) {
        self.byApp = byApp
    }

    subscript(bundleID: String) -> [NotificationCategory] { byApp[bundleID] ?? [] }

    var isEmpty: Bool { byApp.isEmpty }

    /// `setNotificationCategories(_:)`: the app's categories are these, and only these.
    mutating func set(_ categories: [NotificationCategory], for bundleID: String) {
        byApp[bundleID] = categories
    }

    /// Forgets `bundleID`'s categories; whether it had any.
    @discardableResult
    mutating func uninstall(_ bundleID: String) -> Bool {
        byApp.removeValue(forKey: bundleID) != nil
    }

    init(from decoder: any Decoder) throws {
        byApp = try [String: [NotificationCategory]](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try byApp.encode(to: encoder)
    }
}
