import APNSimDeviceLink
import APNSimRules
import Foundation

/// The user's side of a displayed notification: a tap, a button (with typed text for a text-input action) or a
/// dismiss, as iOS hands it to the app (`userNotificationCenter(_:didReceive:withCompletionHandler:)`; Apple,
/// "Handling notifications and notification-related actions",
/// https://developer.apple.com/documentation/usernotifications/handling-notifications-and-notification-related-actions).
extension NotificationList {
    /// The user answers the notification push `interact.apnsID` showed on device `device`, whose app registered
    /// `categories`: the notification leaves the list and the interaction record says what the app did (``AppResponse``).
    /// A notification not shown, a button it does not show, or text for a button that takes none: a sentence naming
    /// it, and nothing changes.
    /// `urlKeys`: the payload keys the app opens on a tap when no vendor's keys decide (its `responses.urlKeys`).
    public mutating func interact(_ interact: DeviceLinkMessage.Interact, device: String, categories: [NotificationCategory],
                                  urlKeys: [String]? = nil) -> Result<InteractionRecord, InteractionRefusal> {
        guard let index = shown.lastIndex(where: { $0.apnsID == interact.apnsID }) else {
            return .failure(InteractionRefusal("device \(device) shows no notification of push \(interact.apnsID): it was never displayed "
                                               + "there, or it was tapped, dismissed, replaced or pushed out of the list since"))
        }
        let notification = shown[index]
        let category = categories.first { $0.identifier == notification.content.category }
        let button: NotificationCategory.Action?
        switch interact.action {
        case InteractionRecord.defaultAction, InteractionRecord.dismissAction:
            button = nil
            if interact.text != nil {
                return .failure(InteractionRefusal("only a text-input action takes text; a \(interact.action == InteractionRecord.defaultAction ? "tap" : "dismiss") takes none"))
            }
        default:
            let shownButtons = notification.content.actions ?? []
            guard let found = shownButtons.first(where: { $0.identifier == interact.action }) else {
                let names = shownButtons.map(\.identifier)
                return .failure(InteractionRefusal("the notification of push \(interact.apnsID) has no action \(interact.action); "
                                                   + (names.isEmpty ? "it shows no buttons" : "its buttons are \(names.joined(separator: ", "))")))
            }
            if interact.text != nil, found.textInput == nil {
                return .failure(InteractionRefusal("action \(interact.action) takes no text: it is a button, not a text-input action"))
            }
            button = found
        }
        // Notification Center takes a notification away once the user acts on it, whichever way.
        _ = remove(at: index)
        let text = button?.textInput != nil ? (interact.text ?? "") : nil
        // iOS hands a dismiss to the app only when the category asks for it ("UNNotificationCategoryOptions.customDismissAction").
        let delivered = interact.action != InteractionRecord.dismissAction || category?.options.contains("customDismissAction") == true
        let response = delivered
            ? AppResponse.of(userInfo: notification.content.userInfo, action: interact.action, text: text, urlKeys: urlKeys) : AppResponse()
        return .success(InteractionRecord(
            id: interact.id, device: device, bundleID: notification.bundleID, apnsID: notification.apnsID,
            deliveryID: notification.deliveryID, notification: notification.identifier, action: interact.action, text: text,
            appState: appState(of: notification.bundleID, opening: interact.action == InteractionRecord.defaultAction
                                   || button?.options.contains("foreground") == true),
            delivered: delivered, opened: response.opened, openedBy: response.openedBy, event: response.event,
            detail: Self.detail(of: interact.action, text: text, category: category, delivered: delivered, response: response),
            at: interact.at))
    }

    /// The app's `UIApplication.State` when the response reaches it: `active` in the foreground, `inactive` while iOS
    /// brings it there (a tap, a foreground action), `background` for an action that runs in the background.
    private func appState(of bundleID: String, opening: Bool) -> String {
        if foreground[bundleID] != nil { return "active" }
        return opening ? "inactive" : "background"
    }

    private static func detail(of action: String, text: String?, category: NotificationCategory?,
                               delivered: Bool, response: AppResponse) -> String {
        let what = switch action {
        case InteractionRecord.defaultAction: "tapped"
        case InteractionRecord.dismissAction: "dismissed"
        default: "answered with action \(action)" + (text.map { " and the text \"\($0)\"" } ?? "")
        }
        guard delivered else {
            return "\(what); iOS did not tell the app: its category (\(category?.identifier ?? "none")) has no customDismissAction option"
        }
        var parts = [what]
        if let opened = response.opened, let key = response.openedBy { parts.append("the app opened \(opened) (\(key))") }
        if let event = response.event { parts.append("\(event.vendor) reported \(event.name)") }
        if response.opened == nil, response.event == nil { parts.append("the payload names nothing for the app to open") }
        return parts.joined(separator: "; ")
    }
}

/// Why an interaction changed nothing, in a sentence naming what was asked for.
public struct InteractionRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
