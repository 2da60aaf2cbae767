import UIKit
import UserNotifications

/// An app's delegate as Xcode's templates and most apps write it: it becomes the notification center's delegate at
/// launch, routes a tapped notification to the screen its payload's `screen` key names, keeps what a reply says, and
/// presents in the foreground as the payload's `quiet` key asks. Its Snooze button has the bug apnsim reports: the
/// completion handler is never called.
class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication,
                     didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        UNUserNotificationCenter.current().delegate = self
        return true
    }
}

extension AppDelegate: UNUserNotificationCenterDelegate {
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse,
                                withCompletionHandler completionHandler: @escaping () -> Void) {
        let userInfo = response.notification.request.content.userInfo
        switch response.actionIdentifier {
        case UNNotificationDefaultActionIdentifier:
            guard let screen = userInfo["screen"] as? String, let url = URL(string: "example://\(screen)") else {
                print("no screen in the payload; staying on the home screen")
                break
            }
            print("routing to \(screen)")
            UIApplication.shared.open(url)
        case "reply":
            if let reply = response as? UNTextInputNotificationResponse {
                print("reply to \(userInfo["chat"] as? String ?? "an unknown chat"): \(reply.userText)")
            }
        case "snooze":
            print("snoozed")
            return  // the bug: completionHandler is never called
        default:
            print("action \(response.actionIdentifier)")
        }
        completionHandler()
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification,
                                withCompletionHandler completionHandler: @escaping (UNNotificationPresentationOptions) -> Void) {
        if notification.request.content.userInfo["quiet"] as? Bool == true {
            completionHandler([.list])
        } else {
            completionHandler([.banner, .list, .sound])
        }
    }
}
