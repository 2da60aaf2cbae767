import APNSimRules
import Foundation
import PostgresNIO

/// A batch of delivery events as PostgreSQL statements: each run of events of one kind, in the batch's order, one
/// statement whose rows are one JSON array (``PostgresRows``). A receipt's statement returns the display latency of
/// each push it says was displayed; the others return nothing.
struct DeliveryRuns {
    private(set) var runs: [PostgresQuery] = []

    private enum Kind: Hashable {
        case accepted, acknowledged, receipt, forgotten, stored, registered, unregistered, held, released, releasedAll, handedOff, handOffDone, linked, unlinked, storedClaimed,
            channelCreated, channelDeleted, broadcastShared
    }

    /// `replica`: the replica whose held pushes these are (``PostgresStore/join(as:)``).
    init(_ events: [DeliveryEvent], replica: String = "") throws {
        var start = events.startIndex
        while start < events.endIndex {
            let kind = Self.kind(of: events[start])
            var end = start + 1
            if let group = Self.group(of: events[start]) {
                // A stretch of events of one group: one statement per kind, each kind's events in their order, the kinds
                // in the group's order. The stretch ends before an event of another group, or one that must come before
                // an event of the stretch on the same row (a receipt, then an acknowledgement of the same push).
                var phases: [Row: Int] = [:]
                func fits(_ event: DeliveryEvent) -> Bool {
                    guard Self.group(of: event) == group else { return false }
                    guard let (row, phase) = Self.row(of: event) else { return true }
                    if let last = phases[row], last > phase { return false }
                    phases[row] = phase
                    return true
                }
                _ = fits(events[start])
                while end < events.endIndex, fits(events[end]) { end += 1 }
                var byKind: [Kind: [DeliveryEvent]] = [:]
                for event in events[start..<end] { byKind[Self.kind(of: event), default: []].append(event) }
                for kind in Self.order where byKind[kind] != nil { runs += try Self.statements(kind, byKind[kind]![...], replica: replica) }
            } else {
                while end < events.endIndex, Self.kind(of: events[end]) == kind { end += 1 }
                runs += try Self.statements(kind, events[start..<end], replica: replica)
            }
            start = end
        }
    }

    /// Groups of kinds whose events may be gathered into one statement per kind over a stretch of a batch, however they
    /// interleave. Links: a device linking writes a link and a claim of what is stored for it, then registers its apps,
    /// each a table none of the others reads; thousands of devices linking at once interleave them, and one statement
    /// per event, each a round trip inside the transaction, held a batch of 2,000 open for seconds
    /// (`Benchmarks/cluster_scale.sh`). Pushes: a push accepted and handed off, or accepted, held while sent,
    /// acknowledged, released and displayed, interleaves with the next; a statement per event made a hand-off about
    /// ten statements on the cluster's send-to-display path, and PostgreSQL's CPU 500 µs a push
    /// (`Benchmarks/cluster_e2e.sh`, `pg_stat_statements`). Gathered, each row's events still meet it in their order
    /// (``row(of:)``). A push held in a slot (stored for later) replaces what the slot held, whatever its ID: it stays
    /// in a run of its own.
    private static func group(of event: DeliveryEvent) -> Int? {
        switch event {
        case .linked, .registered, .storedClaimed: 1
        case .accepted, .handedOff, .handOffDone, .acknowledged, .receipt, .released: 2
        case .held(let push): push.slot == nil ? 2 : nil
        default: nil
        }
    }

    /// The order the kinds of a stretch are written in: for each row, its events' order (``row(of:)``).
    private static let order: [Kind] = [.linked, .storedClaimed, .registered, .accepted, .held, .handedOff, .handOffDone,
                                        .acknowledged, .receipt, .released]

    private enum Row: Hashable {
        case delivery(String), held(String)
    }

    /// The row an event of the pushes' group writes and its place among the events on that row, in ``order``: a
    /// delivery's record is written, then acknowledged, then given its receipt; a held push is held, then released.
    /// `nil` for an event that meets no other's row (a hand-off's row, written and deleted by different replicas).
    private static func row(of event: DeliveryEvent) -> (Row, Int)? {
        switch event {
        case .accepted(let record): (.delivery(record.id), 0)
        case .acknowledged(let id, _): (.delivery(id), 1)
        case .receipt(let id, _, _, _, _, _, _, _): (.delivery(id), 2)
        case .held(let push): (.held(push.id), 0)
        case .released(let id): (.held(id), 1)
        default: nil
        }
    }

    private static func kind(of event: DeliveryEvent) -> Kind {
        switch event {
        case .accepted: .accepted
        case .acknowledged: .acknowledged
        case .receipt: .receipt
        case .forgotten: .forgotten
        case .stored: .stored
        case .registered: .registered
        case .unregistered: .unregistered
        case .held: .held
        case .released: .released
        case .releasedAll: .releasedAll
        case .handedOff: .handedOff
        case .handOffDone: .handOffDone
        case .linked: .linked
        case .unlinked: .unlinked
        case .storedClaimed: .storedClaimed
        case .channelCreated: .channelCreated
        case .channelDeleted: .channelDeleted
        case .broadcastShared: .broadcastShared
        }
    }

    /// `rows` keyed by `key`: the first of each key kept, in its place, or (`keepLast`) the last, in its place, as
    /// SQLite's `INSERT OR REPLACE` writes a record met again last in the record's order. One statement may touch a row
    /// once, and applying the events one by one would have left the last (or first) one's mark.
    private static func unique<Row>(_ rows: [Row], key: (Row) -> String, keepLast: Bool) -> [Row] {
        var index: [String: Int] = [:]
        for (at, row) in rows.enumerated() where keepLast || index[key(row)] == nil { index[key(row)] = at }
        return rows.enumerated().compactMap { at, row in index[key(row)] == at ? row : nil }
    }

    private static func statements(_ kind: Kind, _ events: ArraySlice<DeliveryEvent>, replica: String) throws -> [PostgresQuery] {
        switch kind {
        case .accepted:
            let rows = unique(events.compactMap { if case .accepted(let record) = $0 { PostgresRows.Delivery(record) } else { nil } },
                              key: \.id, keepLast: true)
            let columns = "id, apns_id, unique_id, device, bundle_id, token, push_type, outcome, content, detail, accepted_at, "
                + "delivered_at, displayed_at, extension, presentation, activity"
            // SQLite's INSERT OR REPLACE: a record met again is written anew, last in the record's order (a new `seq`).
            let updates = columns.split(separator: ", ").dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            return [statement("""
                INSERT INTO deliveries (\(columns)) SELECT \(columns) FROM json_to_recordset($1::json) AS r(
                    id text, apns_id text, unique_id text, device text, bundle_id text, token text, push_type text, outcome text,
                    content text, detail text, accepted_at double precision, delivered_at double precision,
                    displayed_at double precision, extension text, presentation text, activity text)
                ON CONFLICT (id) DO UPDATE SET \(updates), seq = DEFAULT, stored_at = NULL, stored_for = NULL
                """, PostgresRows.json(rows))]
        case .acknowledged:
            let rows = unique(events.compactMap { if case .acknowledged(let id, let at) = $0 { PostgresRows.Mark(id: id, at: at.timeIntervalSince1970) } else { nil } },
                              key: \.id, keepLast: false)
            return [statement("""
                UPDATE deliveries d SET delivered_at = r.at FROM json_to_recordset($1::json) AS r(id text, at double precision)
                WHERE d.id = r.id AND d.delivered_at IS NULL
                """, PostgresRows.json(rows))]
        case .receipt:
            // The last receipt of a push says what it was; the first, when it was delivered, unless it was before.
            var first: [String: Double] = [:]
            let rows = unique(events.compactMap { event -> PostgresRows.Receipt? in
                guard case .receipt(let id, let outcome, let content, let detail, let at, let run, let presentation, let activity) = event else { return nil }
                if first[id] == nil { first[id] = at.timeIntervalSince1970 }
                return PostgresRows.Receipt(id: id, outcome: outcome.rawValue, content: content?.text, detail: detail,
                                            at: at.timeIntervalSince1970, delivered_at: first[id]!, extension: run?.text,
                                            presentation: presentation?.text, activity: activity?.text)
            }, key: \.id, keepLast: true)
            return [statement("""
                UPDATE deliveries d SET outcome = r.outcome, content = r.content, detail = r.detail, displayed_at = r.at,
                    delivered_at = coalesce(d.delivered_at, r.delivered_at), extension = r.extension, presentation = r.presentation,
                    activity = r.activity
                FROM json_to_recordset($1::json) AS r(id text, outcome text, content text, detail text, at double precision,
                                                      delivered_at double precision, extension text, presentation text, activity text)
                WHERE d.id = r.id
                RETURNING CASE WHEN r.outcome = '\(DeliveryOutcome.displayed.rawValue)' THEN r.at - d.accepted_at END
                """, PostgresRows.json(rows))]
        case .forgotten:
            let rows = unique(events.compactMap { if case .forgotten(let id, let detail, let at) = $0 { PostgresRows.Mark(id: id, at: at.timeIntervalSince1970, text: detail) } else { nil } },
                              key: \.id, keepLast: false)
            return [statement("""
                UPDATE deliveries d SET outcome = 'dropped', detail = r.text, delivered_at = coalesce(d.delivered_at, r.at),
                    displayed_at = r.at
                FROM json_to_recordset($1::json) AS r(id text, at double precision, text text)
                WHERE d.id = r.id AND d.outcome IS NULL
                """, PostgresRows.json(rows))]
        case .stored:
            // Stored again (a push held offline, then for power): the first time stays, the last reason is the one.
            var rows: [PostgresRows.Mark] = [], index: [String: Int] = [:]
            for event in events {
                guard case .stored(let id, let reason, let at, _) = event else { continue }
                if let at = index[id] {
                    rows[at].text = reason.rawValue
                } else {
                    index[id] = rows.count
                    rows.append(PostgresRows.Mark(id: id, at: at.timeIntervalSince1970, text: reason.rawValue))
                }
            }
            // One stored push per app cluster-wide (docs/cluster.md): one another replica stored in the slot this one now
            // holds is replaced, its row deleted and its record said (the `.held` run before took the slot's lock, so
            // of two replicas storing in one slot the later sees the earlier's row: the newest in the cluster's order stays).
            return [PostgresQuery(unsafeSQL: """
                WITH r AS (SELECT * FROM json_to_recordset($1::json) AS r(id text, at double precision, text text)),
                marked AS (
                    UPDATE deliveries d SET stored_at = coalesce(d.stored_at, r.at), stored_for = r.text FROM r WHERE d.id = r.id
                    RETURNING d.id),
                replaced AS (
                    DELETE FROM held_pushes o USING held_pushes h, r
                    WHERE h.id = r.id AND h.slot IS NOT NULL AND o.slot = h.slot AND o.replica <> h.replica
                    RETURNING o.id, o.slot, r.at)
                UPDATE deliveries d SET outcome = 'dropped', content = NULL, displayed_at = x.at,
                    delivered_at = coalesce(d.delivered_at, x.at),
                    detail = CASE WHEN strpos(x.slot, chr(31) || 'activity' || chr(31)) > 0 THEN $3 ELSE $2 END
                FROM replaced x WHERE d.id = x.id AND d.outcome IS NULL
                """, binds: PostgresFilter.bindings(PostgresRows.json(rows), HeldPush.replacedDetail(activity: false),
                                                    HeldPush.replacedDetail(activity: true)))]
        case .registered:
            let rows = unique(try events.compactMap { if case .registered(let registration) = $0 { try PostgresRows.Registration(registration) } else { nil } },
                              key: \.token, keepLast: true)
            return [statement("""
                INSERT INTO device_registrations (token, device, bundle_id, environment, unregistered_from)
                SELECT token, device, bundle_id, environment, unregistered_from FROM json_to_recordset($1::json) AS r(
                    token text, device text, bundle_id text, environment text, unregistered_from double precision)
                ON CONFLICT (token) DO UPDATE SET device = excluded.device, bundle_id = excluded.bundle_id,
                    environment = excluded.environment, unregistered_from = excluded.unregistered_from
                """, PostgresRows.json(rows))]
        case .unregistered:
            let rows = unique(events.compactMap { if case .unregistered(let token, let at) = $0 { PostgresRows.Mark(id: token.hex, at: at.timeIntervalSince1970) } else { nil } },
                              key: \.id, keepLast: true)
            // The other replicas are told, so a token they took in answers 410 as here (docs/cluster.md).
            return [PostgresQuery(unsafeSQL: """
                WITH removed AS (
                    UPDATE device_registrations d SET unregistered_from = r.at FROM json_to_recordset($1::json) AS r(id text, at double precision)
                    WHERE d.token = r.id
                    RETURNING d.token)
                SELECT NULL::double precision FROM (
                    SELECT pg_notify('\(PostgresStore.notificationChannel)', 'unregister ' || $2 || ' ' || token) FROM removed OFFSET 0) told
                """, binds: PostgresFilter.bindings(PostgresRows.json(rows), replica))]
        case .held:
            // Applied one by one, a push held in a slot takes the place of what the slot held (perhaps one held earlier
            // in this run), and one held again under its ID is written anew, last in the order held (SQLite's INSERT OR
            // REPLACE). So: delete every row the run's IDs and slots name, then insert the run's survivors in order.
            var survivors: [HeldPush] = []
            for event in events {
                guard case .held(let push) = event else { continue }
                survivors.removeAll { $0.id == push.id || (push.slot != nil && $0.slot == push.slot) }
                survivors.append(push)
            }
            let named = events.compactMap { event -> PostgresRows.Mark? in
                guard case .held(let push) = event else { return nil }
                return PostgresRows.Mark(id: push.id, at: 0, text: push.slot)
            }
            // The slots' locks first, in one order (no two replicas wait on each other), held until the commit: a replica
            // storing in a slot another is storing in waits for it, and then replaces it (the `.stored` run).
            let json = PostgresRows.json(named)
            return [PostgresQuery(unsafeSQL: """
                        SELECT NULL::double precision FROM (
                            SELECT pg_advisory_xact_lock(hashtextextended('apnsim-slot:' || slot, 0)) FROM (
                                SELECT DISTINCT text AS slot FROM json_to_recordset($1::json) AS r(id text, text text)
                                WHERE text IS NOT NULL ORDER BY 1) s
                            OFFSET 0) locked
                        """, binds: PostgresFilter.bindings(json)),
                    PostgresQuery(unsafeSQL: """
                        DELETE FROM held_pushes h USING json_to_recordset($1::json) AS r(id text, text text)
                        WHERE h.id = r.id OR (r.text IS NOT NULL AND h.slot = r.text AND h.replica = $2)
                        """, binds: PostgresFilter.bindings(json, replica)),
                    PostgresQuery(unsafeSQL: """
                        INSERT INTO held_pushes (id, device, slot, expires, delivery, replica)
                        SELECT id, device, slot, expires, delivery, $2
                        FROM ROWS FROM (json_to_recordset($1::json) AS (id text, device text, slot text, expires double precision,
                                                                         delivery text)) WITH ORDINALITY AS r(id, device, slot, expires, delivery, n)
                        ORDER BY n
                        """, binds: PostgresFilter.bindings(PostgresRows.json(try survivors.map(PostgresRows.Held.init)), replica))]
        case .released:
            let ids = events.compactMap { if case .released(let id) = $0 { id } else { nil } }
            return [PostgresQuery(unsafeSQL: "DELETE FROM held_pushes WHERE id = ANY($1::text[])", binds: PostgresFilter.bindings(ids))]
        case .releasedAll:
            return [PostgresQuery(unsafeSQL: "DELETE FROM held_pushes WHERE replica = $1", binds: PostgresFilter.bindings(replica))]
        case .handedOff:
            // Each replica handed to is told once, when the transaction commits (a notification carries no push: its
            // payload is at most 8,000 bytes, and the row is what is kept).
            let rows = try events.compactMap { event -> PostgresRows.HandOff? in
                guard case .handedOff(let handOff) = event else { return nil }
                return try PostgresRows.HandOff(handOff)
            }
            return [statement("""
                WITH handed AS (
                    INSERT INTO handoffs (replica, device, push)
                    SELECT replica, device, push FROM ROWS FROM (json_to_recordset($1::json) AS (replica text, device text, push text))
                        WITH ORDINALITY AS r(replica, device, push, n) ORDER BY n
                    RETURNING replica)
                SELECT NULL::double precision FROM (
                    SELECT pg_notify('\(PostgresStore.notificationChannel)', 'handoff ' || replica) FROM (SELECT DISTINCT replica FROM handed) d
                    OFFSET 0) told
                """, PostgresRows.json(rows))]
        case .handOffDone:
            let rows = events.compactMap { if case .handOffDone(let row) = $0 { row } else { nil } }
            return [PostgresQuery(unsafeSQL: "DELETE FROM handoffs WHERE seq = ANY($1::bigint[])", binds: PostgresFilter.bindings(rows))]
        case .linked:
            let rows = unique(events.compactMap { event -> PostgresRows.Link? in
                guard case .linked(let device, let replica, let at) = event else { return nil }
                return PostgresRows.Link(device: device, replica: replica, at: at.timeIntervalSince1970)
            }, key: \.device, keepLast: true)
            return [statement("""
                WITH linked AS (
                    INSERT INTO device_links (device, replica, linked_at)
                    SELECT device, replica, at FROM json_to_recordset($1::json) AS r(device text, replica text, at double precision)
                    ON CONFLICT (device) DO UPDATE SET replica = excluded.replica, linked_at = excluded.linked_at
                    WHERE device_links.linked_at <= excluded.linked_at  -- a link written late does not undo a newer one
                    RETURNING device, replica),
                -- One notification for up to about 6,000 bytes of devices (a notification carries under 8,000).
                chunked AS (
                    SELECT device, replica,
                        sum(octet_length(to_json(device)::text) + 2) OVER (PARTITION BY replica ORDER BY device) / 6000 AS chunk
                    FROM linked)
                SELECT NULL::double precision FROM (
                    SELECT pg_notify('\(PostgresStore.notificationChannel)', 'links ' || replica || ' ' || json_agg(device)::text)
                    FROM chunked GROUP BY replica, chunk OFFSET 0) told
                """, PostgresRows.json(rows))]
        case .unlinked:
            let rows = events.compactMap { event -> PostgresRows.Link? in
                guard case .unlinked(let device, let replica) = event else { return nil }
                return PostgresRows.Link(device: device, replica: replica, at: 0)
            }
            return [statement("""
                WITH gone AS (
                    DELETE FROM device_links l USING json_to_recordset($1::json) AS r(device text, replica text)
                    WHERE l.device = r.device AND l.replica = r.replica
                    RETURNING l.device, l.replica)
                SELECT NULL::double precision FROM (
                    SELECT pg_notify('\(PostgresStore.notificationChannel)', 'unlink ' || replica || ' ' || device) FROM gone OFFSET 0) told
                """, PostgresRows.json(rows))]
        case .channelCreated, .channelDeleted, .broadcastShared:
            return try broadcastStatements(kind, events, replica: replica)
        case .storedClaimed:
            let rows = events.compactMap { event -> PostgresRows.Link? in
                guard case .storedClaimed(let device, let replica) = event else { return nil }
                return PostgresRows.Link(device: device, replica: replica, at: 0)
            }
            return [statement(handOver("""
                DELETE FROM held_pushes h USING json_to_recordset($1::json) AS c(device text, replica text)
                WHERE h.device = c.device AND h.slot IS NOT NULL
                RETURNING h.seq, h.device, h.expires, h.delivery, c.replica AS handed_to
                """), PostgresRows.json(rows))]
        }
    }

    /// Channels and broadcasts the other replicas are told of when the transaction commits (docs/cluster.md,
    /// "Broadcasts across replicas"): a channel by its ID, broadcasts once per batch, read from their rows.
    private static func broadcastStatements(_ kind: Kind, _ events: ArraySlice<DeliveryEvent>, replica: String) throws -> [PostgresQuery] {
        let told = "SELECT NULL::double precision FROM (SELECT pg_notify('\(PostgresStore.notificationChannel)', "
        switch kind {
        case .channelCreated:
            let rows = events.compactMap { if case .channelCreated(let channel) = $0 { PostgresRows.Channel(channel) } else { nil } }
            return [PostgresQuery(unsafeSQL: """
                WITH created AS (
                    INSERT INTO channels (id, bundle_id, environment, storage_policy, created_at)
                    SELECT id, bundle_id, environment, storage_policy, created_at FROM json_to_recordset($1::json) AS r(
                        id text, bundle_id text, environment text, storage_policy integer, created_at double precision)
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id)
                \(told)'channel ' || $2 || ' ' || id) FROM created OFFSET 0) t
                """, binds: PostgresFilter.bindings(PostgresRows.json(rows), replica))]
        case .channelDeleted:
            let ids = events.compactMap { if case .channelDeleted(let id) = $0 { id } else { nil } }
            return [PostgresQuery(unsafeSQL: "DELETE FROM broadcasts WHERE channel = ANY($1::text[])", binds: PostgresFilter.bindings(ids)),
                    PostgresQuery(unsafeSQL: """
                        WITH deleted AS (DELETE FROM channels WHERE id = ANY($1::text[]) RETURNING id)
                        \(told)'unchannel ' || $2 || ' ' || id) FROM deleted OFFSET 0) t
                        """, binds: PostgresFilter.bindings(ids, replica))]
        case .broadcastShared:
            let shared = events.compactMap { if case .broadcastShared(let broadcast) = $0 { broadcast } else { nil } }
            let rows = try shared.map(PostgresRows.Broadcast.init)
            // Trimmed as new ones come: kept while a replica that missed word of them may read them again (listening
            // again), and a channel's latest while it is stored. On the clock the broadcasts were accepted by.
            let now = shared.map(\.acceptedAt.timeIntervalSince1970).max() ?? 0
            return [PostgresQuery(unsafeSQL: """
                        WITH shared AS (
                            INSERT INTO broadcasts (replica, channel, accepted_at, stored_until, broadcast)
                            SELECT replica, channel, accepted_at, stored_until, broadcast
                            FROM ROWS FROM (json_to_recordset($1::json) AS (replica text, channel text, accepted_at double precision,
                                                                             stored_until double precision, broadcast text))
                                WITH ORDINALITY AS r(replica, channel, accepted_at, stored_until, broadcast, n)
                            ORDER BY n
                            RETURNING 1)
                        \(told)'broadcast ' || $2) WHERE EXISTS (SELECT 1 FROM shared) OFFSET 0) t
                        """, binds: PostgresFilter.bindings(PostgresRows.json(rows), replica)),
                    PostgresQuery(unsafeSQL: """
                        DELETE FROM broadcasts b WHERE b.accepted_at < $1 AND (b.stored_until IS NULL OR b.stored_until < $2
                            OR EXISTS (SELECT 1 FROM broadcasts n WHERE n.channel = b.channel AND n.seq > b.seq))
                        """, binds: PostgresFilter.bindings(now - SharedBroadcast.kept, now))]
        default:
            return []
        }
    }

    /// Held pushes handed to another replica: the rows `moved` deletes from `held_pushes` (returning `seq, device,
    /// expires, delivery, handed_to`) written to `handoffs` for `handed_to`, in the order held, in ``HandOff``'s JSON
    /// (recorded already, accepted now), and each replica handed to told once at the commit. The row moves, so a push
    /// is handed once however many replicas move it at once.
    static func handOver(_ moved: String) -> String {
        """
        WITH moved AS (\(moved)),
        handed AS (
            INSERT INTO handoffs (replica, device, push)
            SELECT handed_to, device, json_build_object(
                'replica', handed_to, 'device', device, 'delivery', delivery::json,
                'expiration', CASE WHEN expires IS NULL THEN json_build_object('storeByDefault', json_build_object())
                                   ELSE json_build_object('until', json_build_object('_0', expires)) END,
                'acceptedAt', extract(epoch FROM clock_timestamp()), 'recorded', true, 'hops', 0)::text
            FROM moved ORDER BY seq
            RETURNING replica)
        SELECT NULL::double precision FROM (
            SELECT pg_notify('\(PostgresStore.notificationChannel)', 'handoff ' || replica) FROM (SELECT DISTINCT replica FROM handed) d
            OFFSET 0) told
        """
    }

    private static func statement(_ sql: String, _ json: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, binds: PostgresFilter.bindings(json))
    }
}
