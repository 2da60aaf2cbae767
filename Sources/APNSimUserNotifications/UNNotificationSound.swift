/// The name of a sound file in the app's bundle or its Library/Sounds folder.
public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
}

/// A notification's sound. apnsim records its name (`default` for the default sound) and plays nothing.
open class UNNotificationSound: NSObject, @unchecked Sendable {
    /// The name the displayed record shows: the file name, `default`, or `critical` for the critical default.
    public let name: String
    /// The volume of a critical sound, 0 to 1; `nil` for other sounds.
    public let criticalVolume: Float?

    init(name: String, criticalVolume: Float? = nil) {
        self.name = name
        self.criticalVolume = criticalVolume
    }

    public convenience init(named name: UNNotificationSoundName) { self.init(name: name.rawValue) }

    open class var `default`: UNNotificationSound { UNNotificationSound(name: "default") }
    open class var defaultCritical: UNNotificationSound { UNNotificationSound(name: "default", criticalVolume: 1) }
    open class func criticalSoundNamed(_ name: UNNotificationSoundName) -> UNNotificationSound {
        UNNotificationSound(name: name.rawValue, criticalVolume: 1)
    }
    open class func defaultCriticalSound(withAudioVolume volume: Float) -> UNNotificationSound {
        UNNotificationSound(name: "default", criticalVolume: volume)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationSound else { return false }
        return name == other.name && criticalVolume == other.criticalVolume
    }
}

/// How a notification interrupts: `interruption-level` in the push's `aps`.
public enum UNNotificationInterruptionLevel: UInt, Sendable {
    case passive = 0, active = 1, timeSensitive = 2, critical = 3

    /// The value `aps` uses (`time-sensitive`…).
    var apsName: String {
        switch self {
        case .passive: "passive"
        case .active: "active"
        case .timeSensitive: "time-sensitive"
        case .critical: "critical"
        }
    }

    init?(apsName: String) {
        switch apsName {
        case "passive": self = .passive
        case "active": self = .active
        case "time-sensitive": self = .timeSensitive
        case "critical": self = .critical
        default: return nil
        }
    }
}
