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
        let objects = rows.map { row in
            var writer = JSONWriter(capacity: 160)
            row.write(to: &writer)
            return writer.finish()
        }
        return String(decoding: JSONWriter.array(objects), as: UTF8.self)
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

    struct Connection: PostgresRow {
        var connection: ConnectionRecord
        /// The whole record as JSON (``PostgresRows/whole(_:)``).
        var record: String

        init(_ connection: ConnectionRecord) throws {
            self.connection = connection
            record = try PostgresRows.whole(connection)
        }

        func write(to row: inout JSONWriter) {
            row.text("id", connection.id)
            row.field("at", connection.at.timeIntervalSince1970)
            row.text("event", connection.event.rawValue)
            row.text("reason", connection.reason)
            row.text("environment", connection.environment)
            row.field("record", record)
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
        var registration: DeviceRegistration
        /// The device's descriptor, kept whole as JSON.
        var device: String

        init(_ registration: DeviceRegistration) throws {
            (self.registration, device) = (registration, try whole(registration.device))
        }

        var token: String { registration.token.hex }

        func write(to row: inout JSONWriter) {
            row.text("token", token)
            row.field("device", device)
            row.text("bundle_id", registration.bundleID)
            row.text("environment", registration.environment.rawValue)
            row.field("unregistered_from", registration.unregisteredFrom?.timeIntervalSince1970)
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
        var handOff: APNSimStore.HandOff
        /// The hand-off, kept whole as JSON.
        var push: String

        init(_ handOff: APNSimStore.HandOff) throws {
            (self.handOff, push) = (handOff, try whole(handOff))
        }

        func write(to row: inout JSONWriter) {
            row.text("replica", handOff.replica)
            row.text("device", handOff.device)
            row.field("push", push)
        }
    }

    struct Channel: PostgresRow {
        var channel: BroadcastChannel

        init(_ channel: BroadcastChannel) {
            self.channel = channel
        }

        func write(to row: inout JSONWriter) {
            row.text("id", channel.id)
            row.text("bundle_id", channel.bundleID)
            row.text("environment", channel.environment.rawValue)
            row.field("storage_policy", channel.storagePolicy.rawValue)
            row.field("created_at", channel.createdAt.timeIntervalSince1970)
        }
    }

    struct Broadcast: PostgresRow {
        var shared: SharedBroadcast
        /// The broadcast, kept whole as JSON.
        var broadcast: String

        init(_ shared: SharedBroadcast) throws {
            (self.shared, broadcast) = (shared, try whole(shared))
        }

        func write(to row: inout JSONWriter) {
            row.text("replica", shared.replica)
            row.text("channel", shared.channel)
            row.field("accepted_at", shared.acceptedAt.timeIntervalSince1970)
            row.field("stored_until", shared.storedUntil?.timeIntervalSince1970)
            row.field("broadcast", broadcast)
        }
    }

    struct Held: PostgresRow {
        var push: HeldPush
        /// The push's delivery, kept whole as JSON.
        var delivery: String

        init(_ push: HeldPush) throws {
            (self.push, delivery) = (push, try whole(push.delivery))
        }

        func write(to row: inout JSONWriter) {
            row.text("id", push.id)
            row.text("device", push.device)
            row.text("slot", push.slot)
            row.field("expires", push.expires?.timeIntervalSince1970)
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
