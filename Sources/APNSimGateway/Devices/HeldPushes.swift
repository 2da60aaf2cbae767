import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// APNs' store-and-forward as a value: the pushes the gateway holds for devices, and the rules they follow (Apple,
/// "Sending notification requests to APNs",
/// https://developer.apple.com/documentation/usernotifications/sending-notification-requests-to-apns):
///
/// - A push for an offline device is stored, one per device and app: a newer one replaces the older (Apple: "only
///   one notification per bundle ID is kept"), within its `apns-expiration` (30 days when it has none).
/// - `apns-expiration: 0` is never stored: delivered now or dropped.
/// - A push sent to a device is held until the device acknowledges it, and sent again, in the order first sent, when
///   the device comes back, so a device that dies before its `ack` loses nothing.
///
/// Each event returns what changed for the record (``DeliveryEvent``s to persist, in order); ``DeviceDirectory`` owns
/// one under its lock, sends on the device links and persists. Unit tests drive it with plain values.
struct HeldPushes: Sendable {
    /// Where a routed push went.
    enum Routing: Sendable, Equatable {
        case sent
        /// Held for the device; `replacing` is the older push for the same app that this one displaced.
        case stored(replacing: String?)
        /// The device is offline and the push has `apns-expiration: 0`.
        case dropped
    }

    private struct Held: Sendable {
        var device: String
        var delivery: DeviceLinkMessage.Delivery
        var expires: Date?
        var sequence = 0
        /// The device whose link carried it, when that is not its own (``DeviceLinkMessage.ToDevice/Carry``).
        var carrier: String?

        /// Marked carried by `device` unless that is its own (changed in place: reading a `Held` out of the dictionary
        /// first copied its delivery, for each push of a broadcast).
        mutating func carry(by device: String) {
            if self.device != device { carrier = device }
        }
    }

    /// Stored while the device is offline: the newest push per device and app, with its expiry.
    private var pending: [String: Held] = [:]
    /// Sent, not yet acknowledged.
    private var unacknowledged: [String: Held] = [:]
    /// Orders unacknowledged pushes, so a device gets them again in the order they were first sent.
    private var sequence = 0
    /// Whether the events that only let a restarted gateway take back what it held (``DeliveryEvent/isRestartState``)
    /// are made: not when the record is kept in memory, which no restart reads. (Made anyway, the recorder dropped two
    /// of them for every push a broadcast delivered.)
    var recordsRestartState = true
    /// Whether the pushes stored for devices out of reach are the store's, shared with other replicas (docs/cluster.md):
    /// one stored by another replica may replace one stored here, so what is stored here is never sent from memory. A
    /// device arriving takes its stored pushes from the store (``DeliveryEvent/storedClaimed(device:replica:)``).
    var storedInStore = false

    /// How long a push without `apns-expiration` is stored: Apple keeps one "for a limited period" and says at most 30
    /// days elsewhere; apnsim uses 30 days.
    static let defaultStorage: TimeInterval = 30 * 86_400

    /// One push per device and app; a broadcast's per device and Live Activity (its channel keeps only the latest).
    private static func slot(device: String, delivery: DeviceLinkMessage.Delivery) -> String {
        if let activity = delivery.activity { return "\(device)\u{1F}activity\u{1F}\(activity)" }
        return "\(device)\u{1F}\(delivery.bundleID)"
    }

    /// `delivery` for device `device`: sent when it is `online` (and held until acknowledged), else stored or dropped;
    /// what changed for the record is added to `events`.
    mutating func route(_ delivery: DeviceLinkMessage.Delivery, to device: String, online: Bool, expiration: PushPlan.Expiration,
                        now: Date, events: inout [DeliveryEvent]) -> Routing {
        if online {
            holdUnacknowledged(delivery, device: device)
            restartState(.held(HeldPush(id: delivery.id, device: device, slot: nil, expires: nil, delivery: delivery)), into: &events)
            return .sent
        }
        let expires: Date
        switch expiration {
        case .once: return .dropped
        case .storeByDefault: expires = now.addingTimeInterval(Self.defaultStorage)
        case .until(let date): expires = date
        }
        let slot = Self.slot(device: device, delivery: delivery)
        let replaced = pending[slot]?.delivery.id
        pending[slot] = Held(device: device, delivery: delivery, expires: expires)
        restartState(.held(HeldPush(id: delivery.id, device: device, slot: slot, expires: expires, delivery: delivery)), into: &events)
        return .stored(replacing: replaced)
    }

    /// ``route(_:to:online:expiration:now:events:)`` with the events it adds.
    mutating func route(_ delivery: DeviceLinkMessage.Delivery, to device: String, online: Bool, expiration: PushPlan.Expiration,
                        now: Date) -> (Routing, [DeliveryEvent]) {
        var events: [DeliveryEvent] = []
        let routing = route(delivery, to: device, online: online, expiration: expiration, now: now, events: &events)
        return (routing, events)
    }

    /// What device `device` gets on coming online: pushes it never acknowledged first, in the order first sent, then
    /// stored ones still within their expiry (held until acknowledged from now on). Stored ones whose expiry passed
    /// are recorded dropped.
    /// How many are stored for devices out of reach, and how many were sent and not acknowledged.
    var counts: (stored: Int, unacknowledged: Int) { (pending.count, unacknowledged.count) }

    mutating func arrive(_ device: String, now: Date) -> (send: [DeviceLinkMessage.Delivery], events: [DeliveryEvent]) {
        let resend = unacknowledged.values.filter { $0.device == device }.sorted { $0.sequence < $1.sequence }.map(\.delivery)
        let waiting = pending.values.filter { $0.device == device }
        pending = pending.filter { $0.value.device != device }
        // The store's: claimed from it by the replica the device arrived at, and handed to it (expired ones recorded then).
        if storedInStore { return (resend, []) }
        let stored = waiting.filter { held in held.expires.map { $0 > now } ?? true }.map(\.delivery).sorted { $0.id < $1.id }
        let expired = waiting.filter { held in held.expires.map { $0 <= now } ?? false }.map(\.delivery.id).sorted()
        var events: [DeliveryEvent] = []
        for delivery in stored {
            holdUnacknowledged(delivery, device: device)
            restartState(.held(HeldPush(id: delivery.id, device: device, slot: nil, expires: nil, delivery: delivery)), into: &events)
        }
        for id in expired {
            // The outcome first, then the release, so no commit between them can leave a push with neither.
            events.append(.receipt(id: id, outcome: .dropped, content: nil, detail: Self.expiredDetail, at: now))
            restartState(.released(id: id), into: &events)
        }
        return (resend + stored, events)
    }

    /// Pushes `ids`, sent and held, went on the link of device `carrier` (for devices of its process).
    mutating func carry(_ ids: [String], by carrier: String) {
        for id in ids { unacknowledged.inPlace(id) { $0.carry(by: carrier) } }
    }

    /// The link of device `carrier` ended: the pushes it carried for other devices that they have not answered, in the
    /// order first sent, to go to each on its own link; they are no longer marked as carried.
    mutating func uncarry(by carrier: String) -> [(device: String, delivery: DeviceLinkMessage.Delivery)] {
        let carried = unacknowledged.values.filter { $0.carrier == carrier }.sorted { $0.sequence < $1.sequence }
        for held in carried { unacknowledged.inPlace(held.delivery.id) { $0.carrier = nil } }
        return carried.map { ($0.device, $0.delivery) }
    }

    /// The device has push `id`; it is no longer held.
    mutating func acknowledge(_ id: String) -> [DeliveryEvent] {
        var events: [DeliveryEvent] = []
        if unacknowledged.removeValue(forKey: id) != nil { restartState(.released(id: id), into: &events) }
        return events
    }

    /// Whether a push is stored for `device` (out of reach).
    func holdsStored(_ device: String) -> Bool {
        pending.values.contains { $0.device == device }
    }

    /// Whether any push is held for `device`.
    func holds(_ device: String) -> Bool {
        unacknowledged.values.contains { $0.device == device } || pending.values.contains { $0.device == device }
    }

    /// What the record says of a stored push whose `apns-expiration` passed before its device was reachable.
    static let expiredDetail = "apns-expiration passed while the device was offline"

    /// Every push held for `device`, to go to another replica it linked to: those sent and not acknowledged first, in the
    /// order sent, then those stored, with their expiry; none is held here any more. Stored ones whose expiry passed go too,
    /// for the replica that delivers them to record dropped. When stored pushes are the store's (``storedInStore``), they
    /// are only forgotten here: that replica claims them from the store.
    mutating func takeAll(of device: String) -> (pushes: [(delivery: DeviceLinkMessage.Delivery, expires: Date?)], events: [DeliveryEvent]) {
        let sent = unacknowledged.values.filter { $0.device == device }.sorted { $0.sequence < $1.sequence }
        var stored = pending.values.filter { $0.device == device }.sorted { $0.delivery.id < $1.delivery.id }
        pending = pending.filter { $0.value.device != device }
        if storedInStore { stored = [] }
        guard !sent.isEmpty || !stored.isEmpty else { return ([], []) }
        unacknowledged = unacknowledged.filter { $0.value.device != device }
        var events: [DeliveryEvent] = []
        for held in sent + stored { restartState(.released(id: held.delivery.id), into: &events) }
        return ((sent + stored).map { ($0.delivery, $0.expires) }, events)
    }

    /// Drops every held push (`POST /v1/reset`).
    mutating func releaseAll() -> [DeliveryEvent] {
        // Room kept: the gateway holds as many again soon (Benchmarks/broadcast.sh resets before each round; regrowing
        // the table to a thousand pushes took 0.3 ms of the 5.4 that making a broadcast's shares took, in perf).
        pending.removeAll(keepingCapacity: true)
        unacknowledged.removeAll(keepingCapacity: true)
        return [.releasedAll]
    }

    /// Takes back the pushes a previous run of the gateway held (the store's record).
    mutating func restore(_ held: [HeldPush]) {
        for push in held {
            if let slot = push.slot {
                pending[slot] = Held(device: push.device, delivery: push.delivery, expires: push.expires)
            } else {
                holdUnacknowledged(push.delivery, device: push.device)
            }
        }
    }

    /// Adds `event`, which only a restarted gateway reads (``DeliveryEvent/isRestartState``), when such events are kept.
    private func restartState(_ event: @autoclosure () -> DeliveryEvent, into events: inout [DeliveryEvent]) {
        if recordsRestartState { events.append(event()) }
    }

    private mutating func holdUnacknowledged(_ delivery: DeviceLinkMessage.Delivery, device: String) {
        sequence += 1
        unacknowledged[delivery.id] = Held(device: device, delivery: delivery, sequence: sequence)
    }
}
