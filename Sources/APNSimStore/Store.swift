import APNSimRules
import Foundation

/// Where a gateway keeps its record (sends, deliveries, interactions, summaries, connections) and what a gateway restarted on it
/// takes back (registrations and held pushes): SQLite, in a file or in memory (``SQLiteStore``), or PostgreSQL, which
/// gateway replicas share (``PostgresStore``, docs/cluster.md).
///
/// Every store answers every call as the others do: `StoreConformanceTests` runs one suite against each. Writes come
/// from the recorders' writer tasks in batches (``SendRecorder``, ``DeliveryRecorder``), one batch at a time and in the
/// order they were taken; reads come from the control API after a recorder's flush.
public protocol Store: Sendable {
    /// Whether what the store holds outlives the gateway's process (a file, a database), and so whether the events only
    /// a restart reads are worth writing (``DeliveryEvent/isRestartState``).
    var isDurable: Bool { get }

    /// Whether other gateways write to it too (replicas on one PostgreSQL): the record's limits then count what they wrote.
    var isShared: Bool { get }

    /// Whether the store can take writes now, for a store on a server; `nil` for one in this process, which always can.
    var health: StoreHealth? { get }

    /// Inserts a batch of sends in one transaction.
    func insertSends(_ sends: [SendRecord]) async throws
    /// Deletes all but the newest `keeping` sends, and those received before `before`; returns how many went.
    func trimSends(keeping: Int?, before: Date?) async throws -> Int
    /// Sends matching `filter`, newest first.
    func sends(matching filter: SendFilter) async throws -> [SendRecord]
    func sendCount() async throws -> Int
    /// Forgets every recorded send.
    func deleteAllSends() async throws

    /// Applies delivery events in one transaction, in order, and returns the display latencies of the receipts among
    /// them (``AppliedDeliveries/displayLatencies``).
    func apply(_ events: [DeliveryEvent]) async throws -> [Double]
    /// Deletes all but the newest `keeping` deliveries, and those accepted before `before`; returns how many went.
    func trimDeliveries(keeping: Int?, before: Date?) async throws -> Int
    /// Deliveries matching `filter`, oldest first (newest first when it says so).
    func deliveries(matching filter: DeliveryFilter) async throws -> [DeliveryRecord]
    /// How many deliveries `filter` matches, its `limit` aside: what a long-poll counts before it reads them.
    func deliveryCount(matching filter: DeliveryFilter) async throws -> Int
    /// How many deliveries were recorded, and how many of them have an outcome.
    func deliveryCounts() async throws -> (total: Int, completed: Int)
    /// Forgets every delivery record, and the interactions and summaries with what they showed.
    func deleteAllDeliveries() async throws

    /// Every registration and held push, for a gateway starting on this store (held pushes in the order held).
    func deviceState() async throws -> RestartState

    /// Records what a user did to a notification, and what the app did (`token`: the one the push went to).
    func record(_ interaction: InteractionRecord, token: String?) async throws
    /// Interaction records matching `filter`, oldest first.
    func interactions(matching filter: InteractionFilter) async throws -> [InteractionRecord]
    /// Inserts a batch of connection records in one transaction.
    func insertConnections(_ connections: [ConnectionRecord]) async throws
    /// Deletes all but the newest `keeping` connection records, and those before `before`; returns how many went.
    func trimConnections(keeping: Int?, before: Date?) async throws -> Int
    /// Connection records matching `filter`, oldest first.
    func connections(matching filter: ConnectionFilter) async throws -> [ConnectionRecord]
    func connectionCount() async throws -> Int
    /// Forgets every connection record.
    func deleteAllConnections() async throws

    /// Records a Scheduled Summary a device delivered.
    func record(_ summary: SummaryDelivery) async throws
    /// The summaries devices delivered (of `device` when given), oldest first, at most `limit`.
    func summaries(device: String?, limit: Int) async throws -> [SummaryDelivery]
}

/// What a gateway starting on a store takes back: every registration (and so its token) and every held push.
public struct RestartState: Sendable, Hashable {
    public var registrations: [DeviceRegistration]
    /// In the order they were held.
    public var held: [HeldPush]

    public init(registrations: [DeviceRegistration] = [], held: [HeldPush] = []) {
        self.registrations = registrations
        self.held = held
    }
}

extension Store {
    /// The summaries devices delivered (of `device` when given), oldest first, at most `limit`.
    public func summaries(device: String? = nil) async throws -> [SummaryDelivery] {
        try await summaries(device: device, limit: 100)
    }
}
