import APNSimRules
import Foundation
import PostgresNIO

/// The rows ``PostgresStore`` writes, each kind as one JSON array per batch that `json_to_recordset` spreads into rows;
/// a field left out (`nil`) is NULL. Keys are the columns' names.
enum PostgresRows {
    /// `rows` as one JSON array, the text a statement binds, written by hand: `JSONEncoder` builds a tree of boxes per
    /// value, and encoding the rows of sends with it took three fifths of a gateway's CPU on PostgreSQL under h2load
    /// (`perf`, `Benchmarks/store.sh`).
    static func json(_ rows: [some PostgresRow]) -> String {
        var array: [UInt8] = [UInt8(ascii: "[")]
        array.reserveCapacity(rows.count * 160)
        for (index, row) in rows.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            var writer = JSONWriter(capacity: 160)
            row.write(to: &writer)
            array.append(contentsOf: writer.finish())
        }
        array.append(UInt8(ascii: "]"))
        return String(decoding: array, as: UTF8.self)
    }

    /// A value kept whole as JSON in a row's field (a send's record with its payload, a held push): the JSON's text,
    /// escaped once more as the field's string, so its NUL escapes reach the column escaped. `json_to_recordset`
    /// unescapes every string it reads, a nested object's too, and refuses a NUL.
    static func whole(_ value: some Encodable) throws -> String {
        String(decoding: try RecordJSON.encoder.encode(value), as: UTF8.self)
    }

    struct Send: PostgresRow {
        var send: SendRecord

        func write(to row: inout JSONWriter) {
            row.field("received_at", send.receivedAt.timeIntervalSince1970)
            row.text("token", send.token)
            row.text("topic", send.topic)
            row.text("apns_id", send.apnsID)
            row.text("unique_id", send.uniqueID)
            row.field("status", send.status)
            row.field("record", String(decoding: send.recordJSON(), as: UTF8.self))
        }
    }

    struct Delivery: PostgresRow {
        var stored: StoredDelivery

        init(_ record: DeliveryRecord) {
            stored = StoredDelivery(accepted: record)
        }

        var id: String { stored.id }

        func write(to row: inout JSONWriter) {
            row.text("id", stored.id)
            row.text("apns_id", stored.apnsID)
            row.text("unique_id", stored.uniqueID)
            row.text("device", stored.device)
            row.text("bundle_id", stored.bundleID)
            row.text("token", stored.token)
            row.text("push_type", stored.pushType)
            row.text("outcome", stored.outcome?.rawValue)
            row.text("content", stored.content?.text)
            row.text("detail", stored.detail)
            row.field("accepted_at", stored.acceptedAt.timeIntervalSince1970)
            row.field("delivered_at", stored.deliveredAt?.timeIntervalSince1970)
            row.field("displayed_at", stored.displayedAt?.timeIntervalSince1970)
            row.text("extension", stored.extensionRun?.text)
            row.text("presentation", stored.presentation?.text)
            row.text("activity", stored.activity?.text)
        }
    }

    struct Receipt: PostgresRow {
        var id: String
        var outcome: String
        var content: String?
        var detail: String?
        var at: Double
        /// When the push counts as delivered if it was not acknowledged: the first receipt's time.
        var delivered_at: Double
        var `extension`: String?
        var presentation: String?
        var activity: String?

        func write(to row: inout JSONWriter) {
            row.text("id", id)
            row.text("outcome", outcome)
            row.text("content", content)
            row.text("detail", detail)
            row.field("at", at)
            row.field("delivered_at", delivered_at)
            row.text("extension", `extension`)
            row.text("presentation", presentation)
            row.text("activity", activity)
        }
    }

    /// An acknowledgement, a storing, a forgetting: an ID, a time, and what the event says beside them.
    struct Mark: PostgresRow {
        var id: String
        var at: Double
        var text: String?

        func write(to row: inout JSONWriter) {
            row.text("id", id)
            row.field("at", at)
            row.text("text", text)
        }
    }

    struct Registration: PostgresRow {
        var token: String
        var device: String
        var bundle_id: String
        var environment: String
        var unregistered_from: Double?

        init(_ registration: DeviceRegistration) throws {
            token = registration.token.hex
            device = try whole(registration.device)
            bundle_id = registration.bundleID
            environment = registration.environment.rawValue
            unregistered_from = registration.unregisteredFrom?.timeIntervalSince1970
        }

        func write(to row: inout JSONWriter) {
            row.text("token", token)
            row.field("device", device)
            row.text("bundle_id", bundle_id)
            row.text("environment", environment)
            row.field("unregistered_from", unregistered_from)
        }
    }

    struct Link: PostgresRow {
        var device: String
        var replica: String
        var at: Double

        func write(to row: inout JSONWriter) {
            row.text("device", device)
            row.text("replica", replica)
            row.field("at", at)
        }
    }

    struct HandOff: PostgresRow {
        var replica: String
        var device: String
        var push: String

        init(_ handOff: APNSimStore.HandOff) throws {
            replica = handOff.replica
            device = handOff.device
            push = try whole(handOff)
        }

        func write(to row: inout JSONWriter) {
            row.text("replica", replica)
            row.text("device", device)
            row.field("push", push)
        }
    }

    struct Channel: PostgresRow {
        var id: String
        var bundle_id: String
        var environment: String
        var storage_policy: Int
        var created_at: Double

        init(_ channel: BroadcastChannel) {
            (id, bundle_id, environment) = (channel.id, channel.bundleID, channel.environment.rawValue)
            (storage_policy, created_at) = (channel.storagePolicy.rawValue, channel.createdAt.timeIntervalSince1970)
        }

        func write(to row: inout JSONWriter) {
            row.text("id", id)
            row.text("bundle_id", bundle_id)
            row.text("environment", environment)
            row.field("storage_policy", storage_policy)
            row.field("created_at", created_at)
        }
    }

    struct Broadcast: PostgresRow {
        var replica: String
        var channel: String
        var accepted_at: Double
        var stored_until: Double?
        var broadcast: String

        init(_ shared: SharedBroadcast) throws {
            (replica, channel, accepted_at) = (shared.replica, shared.channel, shared.acceptedAt.timeIntervalSince1970)
            stored_until = shared.storedUntil?.timeIntervalSince1970
            broadcast = try whole(shared)
        }

        func write(to row: inout JSONWriter) {
            row.text("replica", replica)
            row.text("channel", channel)
            row.field("accepted_at", accepted_at)
            row.field("stored_until", stored_until)
            row.field("broadcast", broadcast)
        }
    }

    struct Held: PostgresRow {
        var id: String
        var device: String
        var slot: String?
        var expires: Double?
        var delivery: String

        init(_ push: HeldPush) throws {
            id = push.id
            device = push.device
            slot = push.slot
            expires = push.expires?.timeIntervalSince1970
            delivery = try whole(push.delivery)
        }

        func write(to row: inout JSONWriter) {
            row.text("id", id)
            row.text("device", device)
            row.text("slot", slot)
            row.field("expires", expires)
            row.field("delivery", delivery)
        }
    }
}

/// A row of ``PostgresRows``: its fields, named for their columns, in one object of the batch's array.
protocol PostgresRow {
    func write(to row: inout JSONWriter)
}

extension JSONWriter {
    /// A field of text a column keeps as it is: a NUL made U+FFFD, since PostgreSQL's text cannot hold one, and
    /// refusing it would refuse the whole batch. (A value kept whole as JSON, ``PostgresRows/whole(_:)``, keeps its
    /// NULs escaped instead, and is written with `field`.)
    mutating func text(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        field(name, value.utf8.contains(0) ? value.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : value)
    }
}
