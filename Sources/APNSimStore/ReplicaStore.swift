import APNSimRules
import Foundation

/// What gateway replicas on one store share beside the record (docs/cluster.md): which replica each device is linked
/// to, the pushes one replica hands another for a device linked there, and word of both as they change. Links and
/// hand-offs are written as delivery events (``DeliveryEvent/linked(device:replica:at:)``,
/// ``DeliveryEvent/handedOff(_:)``), in order with the record and in its transactions.
///
/// Only ``PostgresStore`` is one; a gateway on memory or a SQLite file is the only gateway there is.
public protocol ReplicaStore: Store {
    /// This gateway is replica `replica` (a name without spaces): the pushes it holds are its own, which it alone takes
    /// back when it restarts (``Store/deviceState()``), and only its own a reset releases.
    func join(as replica: String)
    /// This replica's control API answers at `control` (`http://HOST:PORT`): the others send it the control requests
    /// for its devices.
    func announce(control: String, at date: Date) async throws
    /// Takes over what replicas that are gone left (their connections ended: killed, or their host lost): their held
    /// pushes become pushes handed to this replica, as do the pushes handed to them and not taken; their devices' links
    /// end. Returns their names.
    func claimOrphans() async throws -> [String]
    /// Where each replica's control API answers, by name.
    func controlAddresses() async throws -> [String: String]
    /// Every device linked to a replica now, by device ID.
    func links() async throws -> [String: String]
    /// The pushes handed to replica `replica` and not yet carried out, in the order they were handed, each with its
    /// ``HandOff/row``: one stays until the batch that carries it out (``DeliveryEvent/handOffDone(row:)``) commits, so a
    /// replica killed meanwhile leaves it to another (``claimOrphans()``).
    func handOffs(for replica: String) async throws -> [HandOff]
    /// Those of ``handOffs(for:)`` in rows after `row`: what was handed since the last read, as a replica reads on each
    /// word of a hand-off, rather than every one not yet carried out again.
    func handOffs(for replica: String, after row: Int64) async throws -> [HandOff]
    /// Those of ``handOffs(for:)`` in `rows`.
    func handOffs(for replica: String, rows: [Int64]) async throws -> [HandOff]
    /// The rows of ``handOffs(for:)``, without the pushes: which are still to be carried out.
    func handOffRows(for replica: String) async throws -> [Int64]
    /// The registration of `token`, as whichever replica its device linked to wrote it, and the replica the device is
    /// linked to now; `nil` when no replica registered it.
    func registration(of token: DeviceToken) async throws -> (registration: DeviceRegistration, replica: String?)?
    /// Every registration whose app was removed: what a replica listening again reads, as it may have missed word of some.
    func removedRegistrations() async throws -> [DeviceRegistration]
    /// Every broadcast channel, as the replicas that created them wrote them: what a replica listening again reads.
    func channels() async throws -> [BroadcastChannel]
    /// Channel `id`, when a replica created it and none deleted it.
    func channel(_ id: String) async throws -> BroadcastChannel?
    /// The broadcasts replicas shared after row `row` (``SharedBroadcast/row``), in the order shared: those of the last
    /// few minutes, and each channel's stored message until it expires (older ones are trimmed as new ones are shared).
    func broadcasts(after row: Int64) async throws -> [SharedBroadcast]
    /// What other replicas did, as the store tells it (PostgreSQL's `LISTEN`), for one reader.
    var replicaEvents: AsyncStream<ReplicaEvent> { get }
}

/// What the store tells a replica about the others.
public enum ReplicaEvent: Sendable, Hashable {
    /// The store is listening again (at start, and after losing the server): what changed meanwhile was not told, so
    /// the replica reads the links and its hand-offs again.
    case listening
    /// Devices linked to `replica`: one notification for many, as PostgreSQL is told of them by the batch that wrote them
    /// (one a device made every replica read a million of them one by one, slower than they came: docs/cluster.md).
    case linked(devices: [String], replica: String)
    case unlinked(device: String, replica: String)
    /// Pushes were handed to `replica` (``ReplicaStore/handOffs(for:)``).
    case handedOff(replica: String)
    /// Replica `replica` recorded the app of `token` (hex) removed from its device (``ReplicaStore/registration(of:)``
    /// says when its token answers 410).
    case unregistered(token: String, replica: String)
    /// Replica `replica` created broadcast channel `id` (``ReplicaStore/channel(_:)``), or deleted it.
    case channelCreated(id: String, replica: String)
    case channelDeleted(id: String, replica: String)
    /// Replica `replica` shared broadcasts (``ReplicaStore/broadcasts(after:)``).
    case broadcastShared(replica: String)
    /// Replica `replica` wrote to the record: sends, deliveries (what a reader sees: not restart state alone), or
    /// connection records.
    case recorded(RecordKind, replica: String)

    public enum RecordKind: String, Sendable, Hashable {
        case sends, deliveries, connections
    }

    /// The event a notification's payload names (``payload``); `nil` for one this apnsim does not know.
    public init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("links", 3):
            guard let devices = try? JSONDecoder().decode([String].self, from: Data(parts[2].utf8)) else { return nil }
            self = .linked(devices: devices, replica: parts[1])
        case ("link", 3): self = .linked(devices: [parts[2]], replica: parts[1])  // one device, as replicas before 2026-12-07 told it
        case ("unlink", 3): self = .unlinked(device: parts[2], replica: parts[1])
        case ("handoff", 2): self = .handedOff(replica: parts[1])
        case ("unregister", 3): self = .unregistered(token: parts[2], replica: parts[1])
        case ("channel", 3): self = .channelCreated(id: parts[2], replica: parts[1])
        case ("unchannel", 3): self = .channelDeleted(id: parts[2], replica: parts[1])
        case ("broadcast", 2): self = .broadcastShared(replica: parts[1])
        case ("sends", 2): self = .recorded(.sends, replica: parts[1])
        case ("deliveries", 2): self = .recorded(.deliveries, replica: parts[1])
        case ("connections", 2): self = .recorded(.connections, replica: parts[1])
        default: return nil
        }
    }

    /// The notification's payload: the kind, the replica (a name without spaces), then the device's ID as it is (the
    /// devices' IDs as a JSON array, for links).
    public var payload: String {
        switch self {
        case .listening: "listening"
        case .linked(let devices, let replica):
            "links \(replica) " + String(decoding: (try? JSONEncoder().encode(devices)) ?? Data("[]".utf8), as: UTF8.self)
        case .unlinked(let device, let replica): "unlink \(replica) \(device)"
        case .handedOff(let replica): "handoff \(replica)"
        case .unregistered(let token, let replica): "unregister \(replica) \(token)"
        case .channelCreated(let id, let replica): "channel \(replica) \(id)"
        case .channelDeleted(let id, let replica): "unchannel \(replica) \(id)"
        case .broadcastShared(let replica): "broadcast \(replica)"
        case .recorded(let kind, let replica): "\(kind.rawValue) \(replica)"
        }
    }
}

/// A push one replica accepted for a device linked to another, handed to that one through the store, which delivers
/// it as its own (records it accepted, sends it, holds it): ``DeliveryEvent/handedOff(_:)``.
public struct HandOff: Sendable, Hashable, Codable {
    /// The replica it is handed to.
    public var replica: String
    public var device: String
    public var delivery: Delivery
    public var expiration: PushPlan.Expiration
    /// The `apns-unique-id` the provider was answered with (development only).
    public var uniqueID: String?
    /// When the replica that answered the provider accepted it: the delivery record's `acceptedAt`.
    public var acceptedAt: Date
    /// Whether its delivery record is written already: a push held for the device here, handed on when it linked to
    /// another replica, is not recorded accepted again.
    public var recorded: Bool
    /// How many replicas handed it on before this one (a device that moved while it was on its way): past
    /// ``maximumHops`` it is delivered where it is, held there for the device if it is not linked.
    public var hops: Int
    /// The store's row it was read from (``ReplicaStore/handOffs(for:)``); `nil` before it is written.
    public var row: Int64?

    public static let maximumHops = 3

    private enum CodingKeys: String, CodingKey {
        case replica, device, delivery, expiration, uniqueID, acceptedAt, recorded, hops
    }

    public init(replica: String, device: String, delivery: Delivery, expiration: PushPlan.Expiration, uniqueID: String?,
                acceptedAt: Date, recorded: Bool = false, hops: Int = 0) {
        self.recorded = recorded
        self.replica = replica
        self.device = device
        self.delivery = delivery
        self.expiration = expiration
        self.uniqueID = uniqueID
        self.acceptedAt = acceptedAt
        self.hops = hops
    }
}

/// A broadcast one replica accepted, shared through the store with the others (docs/cluster.md, "Broadcasts across
/// replicas"): each fans it out to the Live Activities of the devices linked to it, as the one that accepted it does
/// to its own, and keeps it as the channel's stored message when the channel stores one.
public struct SharedBroadcast: Sendable, Hashable, Codable {
    /// The replica that accepted it.
    public var replica: String
    public var channel: String
    public var apnsID: String
    public var priority: Int
    public var expiration: PushPlan.Expiration
    public var payload: String
    /// When the replica that accepted it did: its deliveries' `acceptedAt`, and the start of its storage.
    public var acceptedAt: Date
    /// Until when the channel keeps it (``BroadcastPlan/storedUntil(now:)``); `nil` when it keeps nothing.
    public var storedUntil: Date?
    /// The store's row it was read from (``ReplicaStore/broadcasts(after:)``); `nil` before it is written.
    public var row: Int64?

    /// How long the store keeps a broadcast that is not a channel's stored message, for a replica that missed word of it
    /// (its `LISTEN` connection lost) to read it when it listens again: five minutes (chosen).
    public static let kept: TimeInterval = 300

    private enum CodingKeys: String, CodingKey {
        case replica, channel, apnsID, priority, expiration, payload, acceptedAt, storedUntil
    }

    public init(replica: String, channel: String, apnsID: String, priority: Int, expiration: PushPlan.Expiration, payload: String,
                acceptedAt: Date, storedUntil: Date?) {
        self.replica = replica
        self.channel = channel
        self.apnsID = apnsID
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.acceptedAt = acceptedAt
        self.storedUntil = storedUntil
    }
}
