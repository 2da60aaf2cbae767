import APNSimRules
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// What replicas share on PostgreSQL beside the record: `device_links` and `handoffs` (written by ``apply(_:)`` with
/// the record, ``DeliveryRuns``), and word of their changes by `NOTIFY` on ``notificationChannel``, which ``watch()``'s connection listens to (PostgreSQL, "NOTIFY",
/// https://www.postgresql.org/docs/current/sql-notify.html). A notification is sent when its transaction commits, and
/// carries only what changed and for whom: never a push.
extension PostgresStore: ReplicaStore {
    static let notificationChannel = "apnsim_cluster"

    public func join(as replica: String) {
        joined.withLock { $0 = replica }
    }

    public func announce(control: String, at date: Date) async throws {
        try await client.query("""
            INSERT INTO replicas (name, control, started_at) VALUES (\(replica), \(control), \(date.timeIntervalSince1970))
            ON CONFLICT (name) DO UPDATE SET control = excluded.control, started_at = excluded.started_at
            """, logger: logger)
    }

    public func controlAddresses() async throws -> [String: String] {
        var addresses: [String: String] = [:]
        for try await (name, control) in try await client.query("SELECT name, control FROM replicas", logger: logger).decode((String, String).self) {
            addresses[name] = control
        }
        return addresses
    }

    public func links() async throws -> [String: String] {
        var links: [String: String] = [:]
        for try await (device, replica) in try await client.query("SELECT device, replica FROM device_links", logger: logger)
            .decode((String, String).self) {
            links[device] = replica
        }
        return links
    }

    public func takeHandOffs(for replica: String) async throws -> [HandOff] {
        let rows = try await client.query("DELETE FROM handoffs WHERE replica = \(replica) RETURNING seq, push", logger: logger)
        var taken: [(Int64, HandOff)] = []
        for try await (seq, push) in rows.decode((Int64, String).self) {
            taken.append((seq, try RecordJSON.decoder.decode(HandOff.self, from: Data(push.utf8))))
        }
        return taken.sorted { $0.0 < $1.0 }.map(\.1)
    }

    public func registration(of token: DeviceToken) async throws -> (registration: DeviceRegistration, replica: String?)? {
        let rows = try await client.query("""
            SELECT r.device, r.bundle_id, r.environment, r.unregistered_from, l.replica
            FROM device_registrations r LEFT JOIN device_links l ON l.device = (r.device::json ->> 'id')
            WHERE r.token = \(token.hex)
            """, logger: logger)
        for try await (device, bundleID, environment, unregisteredFrom, replica) in rows.decode((String, String, String, Double?, String?).self) {
            guard let environment = APNsEnvironment(rawValue: environment) else { return nil }
            let registration = DeviceRegistration(
                token: token, device: try RecordJSON.decoder.decode(DeviceDescriptor.self, from: Data(device.utf8)),
                bundleID: bundleID, environment: environment, unregisteredFrom: unregisteredFrom.map(Date.init(timeIntervalSince1970:)))
            return (registration, replica)
        }
        return nil
    }

    /// Tells the replicas listening `event` when the transaction `connection` is in commits (at once outside one).
    static func tell(_ event: ReplicaEvent, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(notificationChannel), \(event.payload))::text", logger: logger)
    }

    /// Listens on `connection` until it closes, telling ``replicaEvents`` what it hears: ``ReplicaEvent/listening``
    /// first, once the server has the `LISTEN`.
    func listen(on connection: PostgresConnection) async throws {
        try await connection.listen(on: Self.notificationChannel) { notifications in
            told.yield(.listening)
            for try await notification in notifications {
                if let event = ReplicaEvent(payload: notification.payload) { told.yield(event) }
            }
        }
    }
}
