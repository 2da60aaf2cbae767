import Foundation

/// What a user did to a displayed notification and what the app did about it (`GET /v1/interactions`,
/// docs/interactions.md): iOS hands the app a `UNNotificationResponse` (Apple, "UNNotificationResponse",
/// https://developer.apple.com/documentation/usernotifications/unnotificationresponse) whose `actionIdentifier` is
/// the default action's (a tap), the dismiss action's, or a button's; the app, or its vendor SDK, opens a URL and
/// reports the open.
public struct InteractionRecord: Sendable, Hashable, Codable {
    public var id: String
    public var device: String
    public var bundleID: String
    /// The `apns-id` of the push that showed the notification.
    public var apnsID: String
    /// The delivery that showed it (`GET /v1/deliveries`).
    public var deliveryID: String
    /// Its request identifier: the push's `apns-collapse-id`, or its `apns-id`.
    public var notification: String
    /// `UNNotificationResponse.actionIdentifier`: ``defaultAction`` for a tap, ``dismissAction`` for a dismiss, or
    /// the identifier of one of the category's buttons.
    public var action: String
    /// What the user typed into a text-input action (`UNTextInputNotificationResponse.userText`).
    public var text: String?
    /// Where the app was when the response reached it: `foreground` or `background` (iOS launches or resumes it for
    /// a tap and a foreground action).
    public var appState: String
    /// Whether iOS handed the response to the app: a dismiss reaches it only when the category has the
    /// `customDismissAction` option.
    public var delivered: Bool
    /// The URL the app opens for this response, and the payload key it came from (`ab_uri`, `_od`, …).
    public var opened: String?
    public var openedBy: String?
    /// The open or action event the app's vendor SDK would report.
    public var event: VendorEvent?
    /// Where the app forwarded the response (its `responses.forward`) and what that answered.
    public var forwarded: Forwarded?
    /// What the app's own delegate (its `responses.delegate`) did with the response.
    public var delegate: DelegateRun?
    /// What happened, in a sentence.
    public var detail: String
    public var at: Date

    /// `UNNotificationDefaultActionIdentifier`: the user tapped the notification.
    public static let defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    /// `UNNotificationDismissActionIdentifier`: the user dismissed it.
    public static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"

    /// Swift names by Swift's conventions; the JSON ones as every record and query spells them.
    enum CodingKeys: String, CodingKey {
        case id, device, bundleID, apnsID = "apnsId", deliveryID = "deliveryId", notification, action, text, appState, delivered
        case opened, openedBy, event, forwarded, delegate, detail, at
    }

    public init(id: String, device: String, bundleID: String, apnsID: String, deliveryID: String, notification: String,
                action: String, text: String? = nil, appState: String, delivered: Bool, opened: String? = nil,
                openedBy: String? = nil, event: VendorEvent? = nil, detail: String, at: Date) {
        self.id = id
        self.device = device
        self.bundleID = bundleID
        self.apnsID = apnsID
        self.deliveryID = deliveryID
        self.notification = notification
        self.action = action
        self.text = text
        self.appState = appState
        self.delivered = delivered
        self.opened = opened
        self.openedBy = openedBy
        self.event = event
        self.detail = detail
        self.at = at
    }
}

/// A response the app POSTed to its `responses.forward` URL, and what came back.
public struct Forwarded: Sendable, Hashable, Codable {
    public var url: String
    /// How many times it was sent: again after a connection error or a 5xx, up to ``attemptsAllowed``.
    public var attempts: Int
    /// The last answer's status; absent when none came.
    public var status: Int?
    /// The last answer's body, its first 1,024 bytes as text.
    public var answer: String?
    /// Why the last attempt got no answer.
    public var error: String?

    public static let attemptsAllowed = 3

    public init(url: String, attempts: Int, status: Int? = nil, answer: String? = nil, error: String? = nil) {
        self.url = url
        self.attempts = attempts
        self.status = status
        self.answer = answer
        self.error = error
    }
}

/// An event a vendor SDK reports when the user answers one of its notifications: its name as the SDK logs it and
/// the ids it carries, read from the payload.
public struct VendorEvent: Sendable, Hashable, Codable {
    public var vendor: String
    public var name: String
    public var ids: [String: String]

    public init(vendor: String, name: String, ids: [String: String]) {
        self.vendor = vendor
        self.name = name
        self.ids = ids
    }
}
