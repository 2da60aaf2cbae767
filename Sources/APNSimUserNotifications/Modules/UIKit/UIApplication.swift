// The part of UIKit an app's notification delegate touches (docs/interactions.md, "The app's own delegate"): the
// application object, its delegate protocol and launch, opening a URL, its state and badge. Apple, "UIApplication",
// https://developer.apple.com/documentation/uikit/uiapplication
//
// Where it differs from Apple's: `open(_:options:completionHandler:)` opens nothing; it tells apnsim's device, which
// records the URL with the response being handled, and completes with true.
import UserNotifications

open class UIResponder: NSObject {}

public protocol UIApplicationDelegate: AnyObject {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool
}

extension UIApplicationDelegate {
    public func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        true
    }
}

open class UIApplication: UIResponder, @unchecked Sendable {  // its values are touched on the main thread, as UIKit's
    nonisolated(unsafe) private static let sharedApplication = UIApplication()

    public class var shared: UIApplication { sharedApplication }

    public enum State: Int, Sendable {
        case active, inactive, background
    }

    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let remoteNotification = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsRemoteNotificationKey")
        public static let url = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsURLKey")
    }

    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let universalLinksOnly = OpenExternalURLOptionsKey(rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly")
    }

    public static let openSettingsURLString = "app-settings:"
    public static let openNotificationSettingsURLString = "app-settings:notifications"

    open var delegate: (any UIApplicationDelegate)?
    open var applicationState: State = .active
    open var applicationIconBadgeNumber = 0
    open var isRegisteredForRemoteNotifications = true

    open func registerForRemoteNotifications() {}
    open func unregisterForRemoteNotifications() {}

    open func canOpenURL(_ url: URL) -> Bool { true }

    open func open(_ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:], completionHandler: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        NotificationDelegateHost.reportOpened(url)
        if let completionHandler { DispatchQueue.main.async { MainActor.assumeIsolated { completionHandler(true) } } }
    }

    @discardableResult
    open func open(_ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:]) async -> Bool {
        NotificationDelegateHost.reportOpened(url)
        return true
    }

    /// Launches the app with `object` as its delegate, as `UIApplicationMain` does: apnsim's app host calls it.
    public static func launch(_ object: AnyObject) {
        guard let delegate = object as? any UIApplicationDelegate else { return }
        shared.delegate = delegate
        _ = delegate.application(shared, didFinishLaunchingWithOptions: nil)
    }
}
