// The team's side, as Xcode's template leaves it once the vendor's package is added: one subclass, one override.
import UserNotifications
import VendorKitExtension

class NotificationService: VendorKitNotificationService {
    override func prepare(_ content: UNMutableNotificationContent) {
        content.subtitle = "prepared by the team's override"
    }
}
