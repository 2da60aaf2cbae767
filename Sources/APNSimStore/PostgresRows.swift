import APNSimRules
import Foundation
import PostgresNIO

/// The rows ``PostgresStore`` writes, each kind as one JSON array per batch that `json_to_recordset` spreads into rows;
/// a field left out (`nil`) is NULL. Keys are the columns' names.
enum PostgresRows {
    /// `rows` as one JSON array, the text a statement binds. A NUL in a field (`\u0000`) becomes U+FFFD: PostgreSQL's
    /// text cannot hold one, and refusing it would refuse the whole batch. A record kept whole as JSON in a field (a
    /// send's, with its payload) keeps its NULs, escaped once more inside it.
    static func json(_ rows: some Encodable) throws -> String {
        String(decoding: withoutNUL(try RecordJSON.encoder.encode(rows)), as: UTF8.self)
    }

    /// `json` with each `\u0000` escape, and only those (not a `\\u0000`, an escaped backslash before `u0000`),
    /// made `\ufffd`.
    static func withoutNUL(_ json: Data) -> Data {
        let escape = Array(#"\u0000"#.utf8)
        guard json.range(of: Data(escape)) != nil else { return json }
        var bytes = [UInt8](json), index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if index + 6 <= bytes.count, Array(bytes[index..<index + 6]) == escape {
                bytes.replaceSubrange(index..<index + 6, with: Array(#"\ufffd"#.utf8))
            }
            index += 2  // the backslash and the character it escapes
        }
        return Data(bytes)
    }

    struct Send: Encodable {
        var received_at: Double
        var token: String?
        var topic: String?
        var apns_id: String
        var unique_id: String?
        var status: Int
        /// The whole ``SendRecord`` in the control API's JSON.
        var record: String

        init(_ send: SendRecord) throws {
            received_at = send.receivedAt.timeIntervalSince1970
            token = send.token
            topic = send.topic
            apns_id = send.apnsID
            unique_id = send.uniqueID
            status = send.status
            record = String(decoding: try RecordJSON.encoder.encode(send), as: UTF8.self)
        }
    }

    struct Delivery: Encodable {
        var id: String
        var apns_id: String
        var unique_id: String?
        var device: String
        var bundle_id: String
        var token: String
        var push_type: String
        var outcome: String?
        var content: String?
        var detail: String?
        var accepted_at: Double
        var delivered_at: Double?
        var displayed_at: Double?
        var `extension`: String?
        var presentation: String?
        var activity: String?

        init(_ record: DeliveryRecord) {
            let stored = StoredDelivery(accepted: record)
            id = stored.id
            apns_id = stored.apnsID
            unique_id = stored.uniqueID
            device = stored.device
            bundle_id = stored.bundleID
            token = stored.token
            push_type = stored.pushType
            outcome = stored.outcome?.rawValue
            content = stored.content?.text
            detail = stored.detail
            accepted_at = stored.acceptedAt.timeIntervalSince1970
            delivered_at = stored.deliveredAt?.timeIntervalSince1970
            displayed_at = stored.displayedAt?.timeIntervalSince1970
            `extension` = stored.extensionRun?.text
            presentation = stored.presentation?.text
            activity = stored.activity?.text
        }
    }

    struct Receipt: Encodable {
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
    }

    /// An acknowledgement, a storing, a forgetting: an ID, a time, and what the event says beside them.
    struct Mark: Encodable {
        var id: String
        var at: Double
        var text: String?
    }

    struct Registration: Encodable {
        var token: String
        var device: String
        var bundle_id: String
        var environment: String
        var unregistered_from: Double?

        init(_ registration: DeviceRegistration) throws {
            token = registration.token.hex
            device = String(decoding: try RecordJSON.encoder.encode(registration.device), as: UTF8.self)
            bundle_id = registration.bundleID
            environment = registration.environment.rawValue
            unregistered_from = registration.unregisteredFrom?.timeIntervalSince1970
        }
    }

    struct Link: Encodable {
        var device: String
        var replica: String
        var at: Double
    }

    struct HandOff: Encodable {
        var replica: String
        var device: String
        var push: String

        init(_ handOff: APNSimStore.HandOff) throws {
            replica = handOff.replica
            device = handOff.device
            push = String(decoding: try RecordJSON.encoder.encode(handOff), as: UTF8.self)
        }
    }

    struct Channel: Encodable {
        var id: String
        var bundle_id: String
        var environment: String
        var storage_policy: Int
        var created_at: Double

        init(_ channel: BroadcastChannel) {
            (id, bundle_id, environment) = (channel.id, channel.bundleID, channel.environment.rawValue)
            (storage_policy, created_at) = (channel.storagePolicy.rawValue, channel.createdAt.timeIntervalSince1970)
        }
    }

    struct Broadcast: Encodable {
        var replica: String
        var channel: String
        var accepted_at: Double
        var stored_until: Double?
        var broadcast: String

        init(_ shared: SharedBroadcast) throws {
            (replica, channel, accepted_at) = (shared.replica, shared.channel, shared.acceptedAt.timeIntervalSince1970)
            stored_until = shared.storedUntil?.timeIntervalSince1970
            broadcast = String(decoding: try RecordJSON.encoder.encode(shared), as: UTF8.self)
        }
    }

    struct Held: Encodable {
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
            delivery = String(decoding: try RecordJSON.encoder.encode(push.delivery), as: UTF8.self)
        }
    }
}
