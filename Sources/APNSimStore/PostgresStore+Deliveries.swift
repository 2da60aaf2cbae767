import APNSimRules
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Applies a batch in one transaction: the events in runs of one kind, in order, each run one statement. Within a
    /// run the events of one delivery collapse as applying them one by one would leave it (the last receipt, the first
    /// acknowledgement), and a push held and released again within the batch is never written at all.
    public func apply(_ events: [DeliveryEvent]) async throws -> [Double] {
        guard !events.isEmpty else { return [] }
        let replica = self.replica
        let runs = try DeliveryRuns(Self.withoutHeldAndReleased(events), replica: replica)
        let readable = events.contains(where: \.changesRecord)
        return try await client.withTransaction(logger: logger) { connection in
            var latencies: [Double] = []
            for run in runs.runs {
                for try await latency in try await connection.query(run, logger: logger).decode(Double?.self) {
                    if let latency { latencies.append(latency) }
                }
            }
            if readable { try await Self.tell(.recorded(.deliveries, replica: replica), on: connection, logger: logger) }
            return latencies
        }
    }

    /// `events` without the pushes held with no slot (sent, not yet acknowledged) and released in the same batch: a
    /// push delivered while the batch gathered is two writes fewer (docs/cluster.md, "Write cost").
    static func withoutHeldAndReleased(_ events: [DeliveryEvent]) -> [DeliveryEvent] {
        var held: Set<String> = []
        for event in events {
            if case .held(let push) = event, push.slot == nil { held.insert(push.id) }
        }
        guard !held.isEmpty else { return events }
        var released: Set<String> = []
        for event in events {
            if case .released(let id) = event, held.contains(id) { released.insert(id) }
        }
        guard !released.isEmpty else { return events }
        return events.filter { event in
            switch event {
            case .held(let push): !released.contains(push.id)
            case .released(let id): !released.contains(id)
            default: true
            }
        }
    }

    public func trimDeliveries(keeping: Int?, before: Date?) async throws -> Int {
        try await trim(table: "deliveries", order: "seq", time: "accepted_at", keeping: keeping, before: before)
    }

    public func deliveries(matching filter: DeliveryFilter) async throws -> [DeliveryRecord] {
        let order = filter.newestFirst ? "accepted_at DESC, seq DESC" : "accepted_at, seq"
        let query = Self.filter(filter).select("*", from: "deliveries", order: order, limit: filter.limit)
        var records: [DeliveryRecord] = []
        for try await row in try await client.query(query, logger: logger) {
            records.append(try Self.delivery(row.makeRandomAccess()))
        }
        return records
    }

    public func deliveryCount(matching filter: DeliveryFilter) async throws -> Int {
        try await count(Self.filter(filter).select("count(*)", from: "deliveries"))
    }

    public func deliveryCounts() async throws -> (total: Int, completed: Int) {
        let rows = try await client.query("SELECT count(*), count(outcome) FROM deliveries", logger: logger)
        for try await (total, completed) in rows.decode((Int, Int).self) { return (total, completed) }
        return (0, 0)
    }

    public func deleteAllDeliveries() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("DELETE FROM deliveries", logger: logger)
            try await connection.query("DELETE FROM interactions", logger: logger)
            try await connection.query("DELETE FROM summaries", logger: logger)
        }
    }

    public func deviceState() async throws -> RestartState {
        var state = RestartState()
        let registrations = try await client.query(
            "SELECT token, device, bundle_id, environment, unregistered_from FROM device_registrations ORDER BY token", logger: logger)
        for try await (token, device, bundleID, environment, unregisteredFrom) in registrations.decode((String, String, String, String, Double?).self) {
            guard let token = DeviceToken(token), let environment = APNsEnvironment(rawValue: environment) else { continue }
            state.registrations.append(DeviceRegistration(
                token: token, device: try RecordJSON.decoder.decode(DeviceDescriptor.self, from: Data(device.utf8)),
                bundleID: bundleID, environment: environment, unregisteredFrom: unregisteredFrom.map(Date.init(timeIntervalSince1970:))))
        }
        let held = try await client.query("SELECT id, device, slot, expires, delivery FROM held_pushes WHERE replica = \(replica) ORDER BY seq",
                                          logger: logger)
        for try await (id, device, slot, expires, delivery) in held.decode((String, String, String?, Double?, String).self) {
            state.held.append(HeldPush(id: id, device: device, slot: slot, expires: expires.map(Date.init(timeIntervalSince1970:)),
                                       delivery: try RecordJSON.decoder.decode(Delivery.self, from: Data(delivery.utf8))))
        }
        return state
    }

    private static func filter(_ filter: DeliveryFilter) -> PostgresFilter {
        var query = PostgresFilter()
        query.equal("device", filter.device)
        query.equal("token", filter.token?.lowercased())
        query.equal("bundle_id", filter.bundleID)
        query.equal("apns_id", filter.apnsID)
        query.equal("unique_id", filter.uniqueID?.lowercased())
        query.compare("accepted_at", ">", filter.after)
        query.compare("accepted_at", "<", filter.before)
        if filter.completedOnly { query.add("outcome IS NOT NULL") }
        if let page = filter.page {
            let side = switch page { case .olderThan: "<"; case .newerThan: ">" }
            query.add("(accepted_at, seq) \(side) (SELECT accepted_at, seq FROM deliveries WHERE id = \(query.parameter(page.id)))")
        }
        return query
    }

    private static func delivery(_ row: PostgresRandomAccessRow) throws -> DeliveryRecord {
        func text(_ column: String) throws -> String? { try row[column].decode(String?.self) }
        func time(_ column: String) throws -> Date? { try row[column].decode(Double?.self).map(Date.init(timeIntervalSince1970:)) }
        return DeliveryRecord(StoredDelivery(
            id: try row["id"].decode(String.self), apnsID: try row["apns_id"].decode(String.self), uniqueID: try text("unique_id"),
            device: try row["device"].decode(String.self), bundleID: try row["bundle_id"].decode(String.self),
            token: try row["token"].decode(String.self), pushType: try row["push_type"].decode(String.self),
            outcome: try text("outcome").flatMap(DeliveryOutcome.init(rawValue:)),
            content: try text("content").map(EncodedJSON.init(unchecked:)), detail: try text("detail"),
            acceptedAt: try time("accepted_at") ?? Date(timeIntervalSince1970: 0), deliveredAt: try time("delivered_at"),
            displayedAt: try time("displayed_at"), extensionRun: try text("extension").map(EncodedJSON.init(unchecked:)),
            presentation: try text("presentation").map(EncodedJSON.init(unchecked:)),
            activity: try text("activity").map(ReceiptChange.init(unchecked:)), storedAt: try time("stored_at"),
            storedFor: try text("stored_for").flatMap(StoredFor.init(rawValue:))))
    }
}
