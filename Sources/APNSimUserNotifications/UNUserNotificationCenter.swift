/// What an extension may ask of the notification center: the app's categories, its notification settings, its
/// pending and delivered notifications, and its badge.
///
/// Apple, "UNUserNotificationCenter", https://developer.apple.com/documentation/usernotifications/unusernotificationcenter
///
/// Categories are the app's, kept by the device: each push brings the ones the app has registered, and those set here
/// go to the device, which shows their buttons from then on (this push's included) and lists them in the delivery
/// record's `extension.registeredCategories`. Where apnsim differs: the app is authorized for alerts, sounds and
/// badges and has no pending notification; delivered notifications, the badge and removals are not yet the device's.
///
/// In an app's process (``NotificationDelegateHost``), its ``delegate`` is told of responses and of notifications
/// that arrive while the app is in the foreground.
open class UNUserNotificationCenter: NSObject, @unchecked Sendable {  // `categories` and `held` are touched only under `lock`
    private static let shared = UNUserNotificationCenter()
    private let lock = NSLock()
    private var categories: Set<UNNotificationCategory> = []
    private weak var held: (any UNUserNotificationCenterDelegate)?

    public class func current() -> UNUserNotificationCenter { shared }

    /// The app's delegate. The center does not keep it alive, as on Apple's systems.
    open var delegate: (any UNUserNotificationCenterDelegate)? {
        get { lock.withLock { held } }
        set { lock.withLock { held = newValue } }
    }

    open func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        lock.withLock { self.categories = categories }
        ServiceExtensionHost.reportCategories(WireCategories.json(from: categories))
    }

    /// The app's categories as the device has them, before a push is handed to the extension.
    func replaceCategories(_ categories: Set<UNNotificationCategory>) {
        lock.withLock { self.categories = categories }
    }

    open func getNotificationCategories(completionHandler: @escaping (Set<UNNotificationCategory>) -> Void) {
        completionHandler(lock.withLock { categories })
    }

    open func notificationCategories() async -> Set<UNNotificationCategory> {
        lock.withLock { categories }
    }

    open func getNotificationSettings(completionHandler: @escaping (UNNotificationSettings) -> Void) {
        completionHandler(UNNotificationSettings())
    }

    open func notificationSettings() async -> UNNotificationSettings { UNNotificationSettings() }

    open func getPendingNotificationRequests(completionHandler: @escaping ([UNNotificationRequest]) -> Void) {
        completionHandler([])
    }

    open func pendingNotificationRequests() async -> [UNNotificationRequest] { [] }

    open func getDeliveredNotifications(completionHandler: @escaping ([UNNotification]) -> Void) {
        completionHandler([])
    }

    open func deliveredNotifications() async -> [UNNotification] { [] }

    open func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {}
    open func removeAllDeliveredNotifications() {}
    open func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {}
    open func removeAllPendingNotificationRequests() {}

    open func setBadgeCount(_ newBadgeCount: Int, withCompletionHandler completionHandler: (((any Error)?) -> Void)? = nil) {
        completionHandler?(nil)
    }

    open func setBadgeCount(_ newBadgeCount: Int) async throws {}
}

/// A notification the center delivered: its request and when.
open class UNNotification: NSObject, @unchecked Sendable {  // immutable
    public let request: UNNotificationRequest
    public let date: Date

    init(request: UNNotificationRequest, date: Date) {
        self.request = request
        self.date = date
    }
}

public enum UNAuthorizationStatus: Int, Sendable {
    case notDetermined, denied, authorized, provisional, ephemeral
}

public enum UNNotificationSetting: Int, Sendable {
    case notSupported, disabled, enabled
}

public enum UNAlertStyle: Int, Sendable {
    case none, banner, alert
}

public enum UNShowPreviewsSetting: Int, Sendable {
    case always, whenAuthenticated, never
}

/// The app's notification settings as the extension sees them: authorized, with alerts, sounds and badges on.
open class UNNotificationSettings: NSObject, @unchecked Sendable {  // immutable
    public let authorizationStatus = UNAuthorizationStatus.authorized
    public let soundSetting = UNNotificationSetting.enabled
    public let badgeSetting = UNNotificationSetting.enabled
    public let alertSetting = UNNotificationSetting.enabled
    public let notificationCenterSetting = UNNotificationSetting.enabled
    public let lockScreenSetting = UNNotificationSetting.enabled
    public let carPlaySetting = UNNotificationSetting.notSupported
    public let criticalAlertSetting = UNNotificationSetting.disabled
    public let timeSensitiveSetting = UNNotificationSetting.enabled
    public let scheduledDeliverySetting = UNNotificationSetting.disabled
    public let directMessagesSetting = UNNotificationSetting.disabled
    public let announcementSetting = UNNotificationSetting.disabled
    public let alertStyle = UNAlertStyle.banner
    public let showPreviewsSetting = UNShowPreviewsSetting.always
    public let providesAppNotificationSettings = false
}
