/// The app's answer to its notifications: what iOS calls when the user responds to one (`didReceive`) and when one
/// arrives while the app is in the foreground (`willPresent`).
///
/// Apple, "UNUserNotificationCenterDelegate",
/// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate
///
/// On Apple's systems every method is optional, and each comes in a completion-handler and an `async` form; an app
/// implements one. Here each is a requirement with a default, so an app's class implements any of them, in either
/// form: the completion-handler defaults call the `async` forms, whose defaults do what iOS does for an app that
/// implements neither (it presents nothing in the foreground, and the response is done).
public protocol UNUserNotificationCenterDelegate: NSObjectProtocol {
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void)
    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async -> UNNotificationPresentationOptions
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping () -> Void)
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async
    func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?)
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                       withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        nonisolated(unsafe) let (delegate, center, notification, completionHandler) = (self, center, notification, completionHandler)
        Task { @MainActor in completionHandler(await delegate.userNotificationCenter(center, willPresent: notification)) }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions { [] }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                       withCompletionHandler completionHandler: @escaping () -> Void) {
        nonisolated(unsafe) let (delegate, center, response, completionHandler) = (self, center, response, completionHandler)
        Task { @MainActor in
            await delegate.userNotificationCenter(center, didReceive: response)
            completionHandler()
        }
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {}

    public func userNotificationCenter(_ center: UNUserNotificationCenter, openSettingsFor notification: UNNotification?) {}
}

/// How to present a notification that arrives while the app is in the foreground.
///
/// Apple, "UNNotificationPresentationOptions",
/// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions
public struct UNNotificationPresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    @available(*, deprecated, message: "Use .list or .banner")
    public static let alert = UNNotificationPresentationOptions(rawValue: 1 << 2)
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)

    /// The options as the device's protocol names them; the deprecated `.alert` is a banner in the list, as iOS 14
    /// and later read it.
    var names: [String] {
        var names: [String] = []
        if contains(.banner) || contains(UNNotificationPresentationOptions(rawValue: 1 << 2)) { names.append("banner") }
        if contains(.list) || contains(UNNotificationPresentationOptions(rawValue: 1 << 2)) { names.append("list") }
        if contains(.sound) { names.append("sound") }
        if contains(.badge) { names.append("badge") }
        return names
    }
}

/// `UNNotificationResponse.actionIdentifier` of a tap on the notification.
public let UNNotificationDefaultActionIdentifier = "com.apple.UNNotificationDefaultActionIdentifier"
/// `UNNotificationResponse.actionIdentifier` of a dismiss (handed to the app only with `customDismissAction`).
public let UNNotificationDismissActionIdentifier = "com.apple.UNNotificationDismissActionIdentifier"

/// The user's response to a notification: which notification, and which action.
///
/// Apple, "UNNotificationResponse", https://developer.apple.com/documentation/usernotifications/unnotificationresponse
open class UNNotificationResponse: NSObject, @unchecked Sendable {  // immutable
    public let notification: UNNotification
    public let actionIdentifier: String
    /// Apple's scene of the response; apnsim's app has no scenes.
    public let targetScene: AnyObject? = nil

    init(notification: UNNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}

/// The response to a text-input action: what the user typed.
///
/// Apple, "UNTextInputNotificationResponse",
/// https://developer.apple.com/documentation/usernotifications/untextinputnotificationresponse
open class UNTextInputNotificationResponse: UNNotificationResponse, @unchecked Sendable {  // immutable
    public let userText: String

    init(notification: UNNotification, actionIdentifier: String, userText: String) {
        self.userText = userText
        super.init(notification: notification, actionIdentifier: actionIdentifier)
    }
}
