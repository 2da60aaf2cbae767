/// What caused a notification. A pushed one has a `UNPushNotificationTrigger`.
open class UNNotificationTrigger: NSObject, @unchecked Sendable {
    public let repeats: Bool
    init(repeats: Bool) { self.repeats = repeats }
}

/// The trigger of a remote (pushed) notification: what every request an extension receives has.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    init() { super.init(repeats: false) }
}

/// A notification request: what `didReceive(_:withContentHandler:)` is given. Its identifier is the push's
/// `apns-id`, as on iOS.
open class UNNotificationRequest: NSObject, @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    public let trigger: UNNotificationTrigger?

    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.copy() as? UNNotificationContent ?? content
        self.trigger = trigger
    }

    /// A pushed request, as the device hands it to the extension.
    static func pushed(identifier: String, content: UNNotificationContent) -> UNNotificationRequest {
        UNNotificationRequest(identifier: identifier, content: content, trigger: UNPushNotificationTrigger())
    }
}
