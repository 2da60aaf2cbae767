import APNSimRules
import Foundation
import GRDB

/// One accepted push on its way to a simulated device, and what became of it (`GET /v1/deliveries`).
public struct DeliveryRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "deliveries"

    /// The gateway's delivery ID (the device link's `push.id`).
    public var id: String
    public var apnsID: String
    /// The `apns-unique-id` the gateway answered the push with (development only): what Apple's Push Notifications
    /// Console finds a push by.
    public var uniqueID: String?
    public var device: String
    public var bundleID: String
    public var token: String
    public var pushType: String
    /// `nil` until the device sends its receipt.
    public var outcome: DeliveryOutcome?
    /// What the device shows for the push, from its receipt.
    public var content: NotificationContent?
    /// Why, when the outcome is not `displayed`.
    public var detail: String?
    public var acceptedAt: Date
    /// When the device acknowledged the push.
    public var deliveredAt: Date?
    /// When the device's receipt arrived.
    public var displayedAt: Date?
    /// What the app's notification service extension did, for a mutable-content push.
    public var extensionRun: ExtensionRun?
    /// Where the device shows it (group and thread, banner, list), from its receipt; `nil` when nothing shows.
    public var presentation: Presentation?
    /// What a `liveactivity` push did to its Live Activity: which one, the event, what became of it and why, the
    /// content state before and after.
    public var activity: ActivityChange?
    /// What a `widgets` or `controls` push reloaded: which widget or control kinds, or why nothing (deferred past the
    /// widgets' daily budget, or refused), and the budget after it.
    public var widgets: WidgetReload?
    /// When the gateway stored the push, and why (it was delivered later, or discarded); absent when it went at once.
    public var storedAt: Date?
    public var storedFor: StoredFor?
    /// The push's state as Apple's Push Notifications Console shows it in its delivery log (``ConsoleState``); read
    /// from the rest of the record, not stored.
    public var consoleState: ConsoleState?
    /// The parts of the device's receipt that did not read as what they should be (`content`, `extension`,
    /// `presentation`, `activity`), each with what it held and why; those parts are then absent. `nil` when all read.
    public var unreadable: [String]?

    enum CodingKeys: String, CodingKey {
        case id, apnsID = "apnsId", uniqueID = "uniqueId", device, bundleID, token, pushType, outcome, content, detail, acceptedAt, deliveredAt, displayedAt
        case presentation, activity, widgets, unreadable, storedAt, storedFor, consoleState
        case extensionRun = "extension"
    }

    public init(id: String, apnsID: String, device: String, bundleID: String, token: String, pushType: String,
                acceptedAt: Date) {
        self.id = id
        self.apnsID = apnsID
        self.device = device
        self.bundleID = bundleID
        self.token = token
        self.pushType = pushType
        self.acceptedAt = acceptedAt
    }

    /// Dates as seconds since 1970, as the raw SQL of the store compares them (`acceptedAt > ?`, `DELETE … < ?`).
    /// GRDB 7 reads this function only; the static properties earlier versions read were ignored, so files written
    /// before this fix hold text dates, which GRDB's default decoding still reads.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
}

extension DeliveryOutcome: DatabaseValueConvertible {}

/// Which deliveries `Store.deliveries(matching:)` returns, oldest first.
public struct DeliveryFilter: Sendable, Hashable {
    public var device: String?
    public var token: String?
    public var bundleID: String?
    public var apnsID: String?
    /// The `apns-unique-id` the gateway answered the push with.
    public var uniqueID: String?
    /// Only deliveries accepted after this time.
    public var after: Date?
    /// Only deliveries with a receipt.
    public var completedOnly: Bool
    public var limit: Int
    /// The newest `limit` deliveries, newest first (the inbox page), instead of the oldest first.
    public var newestFirst = false
    /// Only deliveries accepted before this time.
    public var before: Date?
    /// Only the deliveries on one side of the one with an ID: the cursor a page of deliveries continues from. An ID the
    /// record does not hold matches nothing.
    public var page: Page?

    /// Which side of a delivery a page takes, by acceptance time and then the order they were recorded in.
    public enum Page: Sendable, Hashable {
        /// Those recorded before it: the next page when newest come first (the inbox pages older deliveries so).
        case olderThan(String)
        /// Those recorded after it: the next page when oldest come first.
        case newerThan(String)

        /// The delivery's ID.
        public var id: String {
            switch self {
            case .olderThan(let id), .newerThan(let id): id
            }
        }
    }

    public init(device: String? = nil, token: String? = nil, bundleID: String? = nil, apnsID: String? = nil, after: Date? = nil,
                completedOnly: Bool = false, limit: Int = 100) {
        self.apnsID = apnsID
        self.device = device
        self.token = token
        self.bundleID = bundleID
        self.after = after
        self.completedOnly = completedOnly
        self.limit = limit
    }
}

/// What happens to a delivery, and to the gateway's device state that must outlive a restart, in the order
/// the gateway saw it. The cases that carry a whole record are `indirect`: an event is copied into the recorder's
/// buffer, out of it and into each pattern that reads it, and inline they made every event 592 bytes, each copy
/// retaining some twenty strings (docs/speed.md, "The delivery record in memory").
public enum DeliveryEvent: Sendable {
    indirect case accepted(DeliveryRecord)
    case acknowledged(id: String, at: Date)
    /// The device's receipt. Its content, extension run and presentation are the JSON the device wrote
    /// (``ReceivedReceipt``), recorded as they came.
    case receipt(id: String, outcome: DeliveryOutcome, content: EncodedJSON<NotificationContent>?, detail: String?, at: Date,
                 extensionRun: EncodedJSON<ExtensionRun>? = nil, presentation: EncodedJSON<Presentation>? = nil,
                 activity: ReceiptChange? = nil)
    /// The device had answered the push and forgot how (``DeviceLinkMessage/Ack/forgotten``): recorded `dropped` with
    /// `detail` only if the record has no outcome yet, so an outcome recorded before stays.
    case forgotten(id: String, detail: String, at: Date)
    /// The gateway stored the push instead of sending it: the device is out of reach, or in Low Power Mode for a
    /// priority-5 push (the Push Notifications Console's "stored" states). `replacing` is the stored push it took the
    /// place of (APNs keeps one per app, so the older is coalesced away), if there was one.
    case stored(id: String, reason: StoredFor, at: Date, replacing: String? = nil)
    /// A device's app got a token.
    indirect case registered(DeviceRegistration)
    /// The app was removed; its token answers 410 from `at` on.
    case unregistered(token: DeviceToken, at: Date)
    /// The gateway holds a push for a device: stored while it is offline (`slot` names the one-per-app place it
    /// occupies, replacing what was there) or sent and not yet acknowledged (`slot` nil).
    indirect case held(HeldPush)
    /// The gateway no longer holds the push.
    case released(id: String)
    case releasedAll
    /// A push for a device linked to another replica, which that replica delivers (``HandOff``); only a store replicas
    /// share (``ReplicaStore``) is given one.
    indirect case handedOff(HandOff)
    /// The hand-off in `row` is carried out: written in the batch with what carrying it out recorded.
    case handOffDone(row: Int64)
    /// Device `device` linked to replica `replica`, or its link there ended (``ReplicaStore``): only a store replicas
    /// share is given these, in order with the pushes.
    case linked(device: String, replica: String, at: Date)
    case unlinked(device: String, replica: String)
    /// The pushes stored for device `device` while it was out of reach, by whichever replica stored them, are handed to
    /// replica `replica` (``HandOff``), which the device is reachable through: each once, as the store's row is moved.
    case storedClaimed(device: String, replica: String)
    /// A broadcast channel was created or deleted (``ReplicaStore``): the other replicas know it, or forget it, from then on.
    case channelCreated(BroadcastChannel)
    case channelDeleted(id: String)
    /// A broadcast this replica accepted, for every other replica to fan out to the Live Activities of its own devices
    /// (``SharedBroadcast``).
    indirect case broadcastShared(SharedBroadcast)

    /// Whether the event changes what a reader of the delivery record sees (not restart state, nor what replicas tell
    /// each other).
    public var changesRecord: Bool {
        switch self {
        case .accepted, .acknowledged, .receipt, .forgotten, .stored: true
        case .registered, .unregistered, .held, .released, .releasedAll, .handedOff, .handOffDone, .linked, .unlinked, .storedClaimed,
             .channelCreated, .channelDeleted, .broadcastShared: false
        }
    }

    /// Whether the event only keeps what a gateway restarted on the same store file takes back (registrations and
    /// held pushes, ``Store/deviceState()``): no reader of the record sees it.
    public var isRestartState: Bool {
        switch self {
        case .registered, .unregistered, .held, .released, .releasedAll: true
        case .accepted, .acknowledged, .receipt, .forgotten, .stored, .handedOff, .handOffDone, .linked, .unlinked, .storedClaimed,
             .channelCreated, .channelDeleted, .broadcastShared: false
        }
    }
}

/// A registration as the store keeps it, so a restarted gateway still knows every token and its device.
public struct DeviceRegistration: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "device_registrations"
    public var token: DeviceToken
    public var device: DeviceDescriptor
    public var bundleID: String
    public var environment: APNsEnvironment
    /// Set once the app is removed: from then on the token answers 410 `Unregistered`.
    public var unregisteredFrom: Date?

    public init(token: DeviceToken, device: DeviceDescriptor, bundleID: String, environment: APNsEnvironment,
                unregisteredFrom: Date? = nil) {
        self.token = token
        self.device = device
        self.bundleID = bundleID
        self.environment = environment
        self.unregisteredFrom = unregisteredFrom
    }

    /// Dates as seconds since 1970, as the raw SQL of the store compares them (`acceptedAt > ?`, `DELETE … < ?`).
    /// GRDB 7 reads this function only; the static properties earlier versions read were ignored, so files written
    /// before this fix hold text dates, which GRDB's default decoding still reads.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }
}

/// A push the gateway holds for a device (see ``DeliveryEvent/held(_:)``).
public struct HeldPush: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "held_pushes"
    public var id: String
    public var device: String
    public var slot: String?
    public var expires: Date?
    public var delivery: Delivery

    public init(id: String, device: String, slot: String?, expires: Date?, delivery: Delivery) {
        self.id = id
        self.device = device
        self.slot = slot
        self.expires = expires
        self.delivery = delivery
    }

    /// Dates as seconds since 1970, as the raw SQL of the store compares them (`acceptedAt > ?`, `DELETE … < ?`).
    /// GRDB 7 reads this function only; the static properties earlier versions read were ignored, so files written
    /// before this fix hold text dates, which GRDB's default decoding still reads.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .timeIntervalSince1970 }

    /// What the record says of a stored push a newer one took the place of: APNs keeps one per app, a channel one per
    /// Live Activity (`activity`: a broadcast's).
    public static func replacedDetail(activity: Bool) -> String {
        activity
            ? "replaced by a newer broadcast on the channel while the device was offline (the channel keeps one)"
            : "replaced by a newer push for the same app while the device was offline (APNs keeps one)"
    }
}

/// Why the gateway stored a push instead of sending it.
public enum StoredFor: String, Sendable, Hashable, Codable {
    /// The device was out of reach.
    case offline
    /// The device was in Low Power Mode and the push had priority 5.
    case power
}

/// A push's state as Apple's Push Notifications Console shows it in its delivery log (Apple, "Viewing the status of
/// push notifications using Metrics and APNs",
/// https://developer.apple.com/documentation/usernotifications/viewing-the-status-of-push-notifications-using-metrics-and-apns):
/// stored because the device is offline or for its power considerations, discarded as expired, as unregistered or as
/// disabled by the user, delivered, or delivered from storage. apnsim reads it from the delivery record.
public enum ConsoleState: String, Sendable, Hashable, Codable {
    case storedOffline, storedForPower, discardedExpired, discardedUnregistered, discardedDisabled, discarded
    case delivered, deliveredFromStorage

    /// The state of a push with this outcome, detail and storage; `nil` while it is on its way (sent, not yet
    /// answered).
    public static func of(outcome: DeliveryOutcome?, detail: String?, storedFor: StoredFor?, deliveredAt: Date?) -> ConsoleState? {
        switch outcome {
        case nil:
            if let storedFor, deliveredAt == nil { return storedFor == .power ? .storedForPower : .storedOffline }
            return deliveredAt == nil ? nil : storedFor == nil ? .delivered : .deliveredFromStorage
        case .dropped?:
            let why = detail ?? ""
            if why.contains("apns-expiration") { return .discardedExpired }
            if why.contains("was removed from device") { return .discardedUnregistered }
            if why.contains("turned notifications off") { return .discardedDisabled }
            return .discarded
        default:
            return storedFor == nil ? .delivered : .deliveredFromStorage
        }
    }
}

