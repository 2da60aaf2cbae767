import APNSimRules
import Foundation

/// The device link, the protocol between the gateway and simulated devices (docs/device-link.md): JSON objects with a
/// `type` field, one per frame. What goes to a device is a ``ToDevice``, what comes from one a ``FromDevice``: each
/// side switches over the other's enum alone, so every case it reads is one it acts on. The payloads are the structs
/// here, one for both directions where a message goes both ways (``Heartbeat``, ``LinkError``).
public enum DeviceLinkMessage {
    public static let protocolVersion = 1

    public struct Hello: Sendable, Hashable, Codable {
        public var version: Int
        public var device: DeviceDescriptor
        /// The process the device runs in, shared by every device it hosts: the gateway may send a broadcast for
        /// several of them on one link (``Carry``). Absent: the device takes pushes on its own link only.
        public var host: String?
        public init(version: Int = DeviceLinkMessage.protocolVersion, device: DeviceDescriptor, host: String? = nil) {
            self.version = version
            self.device = device
            self.host = host
        }
    }

    /// A link that many devices of one process share.
    public struct Link: Sendable, Hashable, Codable {
        public var version: Int
        /// The process, as its devices' `hello` names it (``Hello/host``).
        public var host: String
        public init(version: Int = DeviceLinkMessage.protocolVersion, host: String) {
            self.version = version
            self.host = host
        }
    }

    public struct Welcome: Sendable, Hashable, Codable {
        public var version: Int
        /// Seconds between heartbeats the gateway expects.
        public var heartbeatInterval: Double
        public init(version: Int = DeviceLinkMessage.protocolVersion, heartbeatInterval: Double) {
            self.version = version
            self.heartbeatInterval = heartbeatInterval
        }
    }

    public struct Registration: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: APNsEnvironment
        /// Changes when the app is reinstalled, so a reinstall gets a new token.
        public var installation: String
        /// The app's Team ID; the gateway adds the app to its world under this team if it does not know it.
        public var team: String?
        /// The app's icon badge now (absent: none), so a gateway that restarted shows it again.
        public var badge: Int?
        /// The `ActivityAttributes` types the app can be started by push for (iOS 17.2): each gets a push-to-start
        /// token (`Activity<T>.pushToStartToken`).
        public var pushToStartTypes: [String]?
        /// The kinds of the app's widgets when they take pushes: it then gets a widget push token (iOS 26).
        public var widgetKinds: [String]?
        /// The kinds of its controls that take pushes: each gets a push token (iOS 18).
        public var controlKinds: [String]?
        public init(bundleID: String, environment: APNsEnvironment, installation: String, team: String? = nil, badge: Int? = nil,
                    pushToStartTypes: [String]? = nil, widgetKinds: [String]? = nil, controlKinds: [String]? = nil) {
            self.pushToStartTypes = pushToStartTypes
            self.widgetKinds = widgetKinds
            self.controlKinds = controlKinds
            self.bundleID = bundleID
            self.environment = environment
            self.installation = installation
            self.team = team
            self.badge = badge
        }
    }

    /// Gateway → device: the app's token (``RegisteredApp``, a value of the rules the control API shows too).
    public typealias Registered = RegisteredApp

    public struct Unregistration: Sendable, Hashable, Codable {
        public var token: DeviceToken
        public init(token: DeviceToken) { self.token = token }
    }

    /// Gateway → device: a push (``APNSimRules/Delivery``, which the record keeps for a device offline).
    public typealias Delivery = APNSimRules.Delivery

    public struct Uninstall: Sendable, Hashable, Codable {
        public var bundleID: String
        public init(bundleID: String) { self.bundleID = bundleID }
    }

    /// Gateway → device: an app to the foreground or background (``APNSimRules/Foreground``).
    public typealias Foreground = APNSimRules.Foreground

    public struct Restart: Sendable, Hashable, Codable {
        public init() {}
    }

    public struct StartActivity: Sendable, Hashable, Codable {
        /// The new activity, its `pushToken` set.
        public var activity: LiveActivity
        public init(activity: LiveActivity) { self.activity = activity }
    }

    /// An app's Live Activities as the device has them, after a change no push receipt carries (the app started or
    /// ended one; the order they are shown in changed). The gateway's copy of the app's activities becomes this one:
    /// the device owns them (docs/architecture.md, "What the gateway owns and what the device owns").
    public struct ActivityReport: Sendable, Hashable, Codable {
        public var bundleID: String
        /// Every activity of the app on the device, ended ones too, in the order the device shows them
        /// (``LiveActivity/displaySequence(_:)``: the one in the Dynamic Island first, dismissed ones in their places).
        public var activities: [LiveActivity]
        public init(bundleID: String, activities: [LiveActivity]) {
            self.bundleID = bundleID
            self.activities = activities
        }
    }

    public struct FocusChange: Sendable, Hashable, Codable {
        /// The Focus now on; `nil`: none.
        public var focus: Focus?
        public init(focus: Focus?) { self.focus = focus }
    }

    public struct SummaryChange: Sendable, Hashable, Codable {
        /// The summary now set; `nil`: none.
        public var summary: ScheduledSummary?
        public init(summary: ScheduledSummary?) { self.summary = summary }
    }

    public struct DeliverSummary: Sendable, Hashable, Codable {
        /// Names the device's `summarized` answer.
        public var id: String
        public init(id: String) { self.id = id }
    }

    public struct Interact: Sendable, Hashable, Codable {
        /// Names the device's answer (``Interacted/id``).
        public var id: String
        /// The `apns-id` of the push that showed the notification.
        public var apnsID: String
        /// ``InteractionRecord/defaultAction`` (a tap), ``InteractionRecord/dismissAction``, or a button's identifier.
        public var action: String
        /// What the user typed, for a text-input action.
        public var text: String?
        public var at: Date
        public init(id: String, apnsID: String, action: String, text: String? = nil, at: Date) {
            self.id = id
            self.apnsID = apnsID
            self.action = action
            self.text = text
            self.at = at
        }
    }

    public struct Interacted: Sendable, Hashable, Codable {
        public var id: String
        /// What the user did and what the app did about it; `nil` when nothing happened (``refusal`` says why).
        public var record: InteractionRecord?
        /// Why nothing happened, in a sentence naming what was asked for: no such notification shown, no such button,
        /// text for a button that takes none.
        public var refusal: String?
        public init(id: String, record: InteractionRecord? = nil, refusal: String? = nil) {
            self.id = id
            self.record = record
            self.refusal = refusal
        }
    }

    public struct EndActivity: Sendable, Hashable, Codable {
        public var id: String
        /// The activity's app, whose `activities` the device answers with (even when it no longer has the activity).
        public var bundleID: String
        /// The final content state; `nil` keeps the last.
        public var contentState: [String: JSONValue]?
        /// When it leaves the Lock Screen; `nil`: ``LiveActivity/defaultDismissal`` from `at`.
        public var dismissalDate: Date?
        /// When the app ended it.
        public var at: Date
        public init(id: String, bundleID: String, contentState: [String: JSONValue]?, dismissalDate: Date?, at: Date) {
            self.id = id
            self.bundleID = bundleID
            self.contentState = contentState
            self.dismissalDate = dismissalDate
            self.at = at
        }
    }

    public struct InstallRefused: Sendable, Hashable, Codable {
        public var bundleID: String
        public var kind: InstallCheck.Refusal.Kind
        public var message: String
        public init(bundleID: String, kind: InstallCheck.Refusal.Kind, message: String) {
            self.bundleID = bundleID
            self.kind = kind
            self.message = message
        }
    }

    public struct Ack: Sendable, Hashable, Codable {
        public var id: String
        /// `true`: the push arrived and its receipt comes later (a service extension is running); the gateway keeps
        /// the push until then and sends it again on the next link, so a device that dies mid-extension loses
        /// nothing.
        public var pending: Bool?
        /// `true`: the device answered this push before and no longer remembers how (it keeps its newest receipts
        /// whole, ``NotificationList``): the gateway keeps the outcome its record has, or records the push `dropped`
        /// with that sentence when it has none.
        public var forgotten: Bool?
        public init(id: String, pending: Bool? = nil, forgotten: Bool? = nil) {
            self.id = id
            self.pending = pending
            self.forgotten = forgotten
        }
    }

    public struct Receipt: Sendable, Hashable, Codable {
        public var id: String
        public var outcome: DeliveryOutcome
        /// What the device shows (or would have shown) for this push.
        public var content: NotificationContent?
        /// Why, in words, when the outcome is not `displayed`.
        public var detail: String?
        /// What the app's notification service extension did, when one ran or was skipped.
        public var extensionRun: ExtensionRun?
        /// The app's icon badge after this push, when the push set it.
        public var badge: AppBadge?
        /// Where a displayed (or replaced) notification appears: its group and thread, banner and list. `nil` when
        /// nothing shows (a badge-only push, a background push).
        public var presentation: Presentation?
        /// The Live Activity a `liveactivity` push went to, as it is after the push.
        public var activity: LiveActivity?
        /// What the push did to it, for the delivery record.
        public var activityChange: ActivityChange?
        /// The app's Live Activity budget after the push (``ActivityBudget/Report``), when the device has one.
        public var activityBudget: ActivityBudget.Report?
        /// What a `widgets` or `controls` push reloaded, for the delivery record.
        public var widgetReload: WidgetReload?
        /// Where the activity stands after the push, in place of ``activity`` in the receipt of a carried push
        /// (``carried``): the gateway has the rest of it.
        public var activityProgress: LiveActivity.Progress?

        enum CodingKeys: String, CodingKey {
            case id, outcome, content, detail, badge, presentation, activity, activityChange, activityBudget, activityProgress, widgetReload
            case extensionRun = "extension"
        }

        /// The receipt as it answers a carried push (a broadcast's, to an activity the gateway lists): where the
        /// activity stands (``LiveActivity/Progress``) instead of the whole activity.
        public var carried: Receipt {
            var receipt = self
            if let activity = receipt.activity {
                receipt.activityProgress = activity.progress
                receipt.activity = nil
            }
            return receipt
        }

        public init(id: String, outcome: DeliveryOutcome, content: NotificationContent?, detail: String? = nil,
                    extensionRun: ExtensionRun? = nil, badge: AppBadge? = nil, presentation: Presentation? = nil,
                    activity: LiveActivity? = nil, activityChange: ActivityChange? = nil) {
            self.activity = activity
            self.activityChange = activityChange
            self.id = id
            self.outcome = outcome
            self.content = content
            self.detail = detail
            self.extensionRun = extensionRun
            self.badge = badge
            self.presentation = presentation
        }
    }

    /// Device → gateway: part of an attachment's bytes (``APNSimRules/AttachmentCopy``, which the inbox keeps).
    public typealias AttachmentCopy = APNSimRules.AttachmentCopy

    /// An app's icon badge (``APNSimRules/AppBadge``), in a receipt.
    public typealias AppBadge = APNSimRules.AppBadge

    public struct Heartbeat: Sendable, Hashable, Codable {
        public var sequence: Int
        public init(sequence: Int) { self.sequence = sequence }
    }

    public struct LinkError: Sendable, Hashable, Codable {
        public var reason: String
        public var explanation: String
        public init(reason: String, explanation: String) {
            self.reason = reason
            self.explanation = explanation
        }
    }
}
