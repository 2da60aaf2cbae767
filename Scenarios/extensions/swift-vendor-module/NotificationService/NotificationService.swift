// The team's side: the vendor's module does the work, and one override marks what the team changed. Without an
// Info.plist, apnsim runs this class because nothing subclasses it (the most-derived), as NSExtensionPrincipalClass
// would name it in Xcode's template.
import UserNotifications
import VendorPushExtension

class NotificationService: VendorNotificationService {
    override func willDeliver(_ content: UNMutableNotificationContent) {
        content.subtitle = "set by the team's override"
    }
}
