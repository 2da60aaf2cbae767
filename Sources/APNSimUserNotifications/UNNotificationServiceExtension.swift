/// The class a notification service extension subclasses: override `didReceive(_:withContentHandler:)` and
/// `serviceExtensionTimeWillExpire()` as on iOS.
///
/// Apple, "UNNotificationServiceExtension",
/// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension
///
/// Where apnsim differs: the object lives in an apnsim extension process (`ServiceExtensionHost`), one per app,
/// reused across pushes as iOS reuses it; `didReceive` is called on the main thread, whose run loop the process
/// services, and `serviceExtensionTimeWillExpire` on a separate thread, as Apple documents for it. The time budget,
/// first-call-wins and what a crash shows are the device's rules (docs/service-extensions.md).
open class UNNotificationServiceExtension: NSObject {
    public override init() {}

    /// Modify `request.content` and hand the result to `contentHandler`, once. The default hands over the original.
    open func didReceive(_ request: UNNotificationRequest,
                         withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    /// Time is nearly up: hand over the best content you have now. The default does nothing, and the original is shown.
    open func serviceExtensionTimeWillExpire() {}
}
