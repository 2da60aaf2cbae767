/// A Focus the user turned on (Do Not Disturb, Sleep, Work, or one of their own), and the apps it lets through
/// (Apple, "Managing notifications with Focus",
/// https://developer.apple.com/documentation/usernotifications/managing-notifications-with-focus, and the
/// Platform User Guide's "Set up a Focus on iPhone": a Focus silences notifications except from the people and apps
/// it allows).
public struct Focus: Sendable, Hashable, Codable {
    /// Its name as the device shows it: `Do Not Disturb`, `Sleep`, `Work`, or any other.
    public var name: String
    /// The apps whose notifications it lets through, by bundle ID.
    public var allowedApps: [String]

    public init(name: String, allowedApps: [String] = []) {
        self.name = name
        self.allowedApps = allowedApps
    }

    enum CodingKeys: String, CodingKey { case name, allowedApps }

    /// `allowedApps` may be left out (none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  allowedApps: try container.decodeIfPresent([String].self, forKey: .allowedApps) ?? [])
    }
}

/// What a notification's `interruption-level` and the device's Focus let it do: break through as a banner, or be
/// delivered quietly to the list (Apple, "UNNotificationInterruptionLevel",
/// https://developer.apple.com/documentation/usernotifications/unnotificationinterruptionlevel).
///
/// - `passive` never lights the screen or plays a sound: it goes to the list quietly, Focus or not.
/// - `active` (the default) is shown, unless a Focus that does not allow the app holds it.
/// - `time-sensitive` breaks through a Focus when the app has the Time Sensitive Notifications entitlement
///   (`com.apple.developer.usernotifications.time-sensitive`); without it, iOS treats it as `active`.
/// - `critical` breaks through when the app has the Critical Alerts entitlement
///   (`com.apple.developer.usernotifications.critical-alerts`, which Apple grants on request); without it, as `active`.
///
/// apnsim's choices where Apple is silent (README, "Assumptions"): the user allows Time Sensitive notifications for
/// every app (iOS asks once per app; it is on unless the user turns it off); an unknown level is treated as `active`.
public enum Interruption {
    public static let timeSensitiveEntitlement = "com.apple.developer.usernotifications.time-sensitive"
    public static let criticalAlertsEntitlement = "com.apple.developer.usernotifications.critical-alerts"

    /// The levels that break through a Focus and a Scheduled Summary, by the entitlement each needs and its name in Xcode.
    static let breakThrough: [String: (entitlement: String, name: String)] = [
        "time-sensitive": (timeSensitiveEntitlement, "Time Sensitive Notifications"),
        "critical": (criticalAlertsEntitlement, "Critical Alerts"),
    ]

    /// Whether a notification of `level` from an app with `entitlements` is delivered at once through a Focus and a
    /// Scheduled Summary (the summary delivers Time Sensitive notifications immediately).
    public static func breaksThrough(level: String?, entitlements: [String]) -> Bool {
        guard let level, let needs = breakThrough[level] else { return false }
        return entitlements.contains(needs.entitlement)
    }

    /// Whether the notification shows as a banner, and why not when it does not (a sentence for its record).
    public static func decide(level: String?, bundleID: String, entitlements: [String], focus: Focus?) -> (banner: Bool, quietly: String?) {
        if level == "passive" {
            return (false, "interruption-level passive: delivered quietly to the list, without a banner or sound")
        }
        guard let holding = focus, !holding.allowedApps.contains(bundleID) else { return (true, nil) }
        guard let level, let needs = breakThrough[level] else {
            return (false, "held by the \(holding.name) Focus and delivered quietly: it does not allow \(bundleID)")
        }
        if entitlements.contains(needs.entitlement) { return (true, nil) }
        return (false, "held by the \(holding.name) Focus and delivered quietly: \(level) without the app's \(needs.name) "
                + "entitlement is treated as active")
    }
}
