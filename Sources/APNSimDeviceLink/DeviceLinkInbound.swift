import APNSimRules
import Foundation

extension ReceivedReceipt {
    /// What the gateway makes of `receipt` when a device sends it.
    public init(_ receipt: DeviceLinkMessage.Receipt) {
        self.init(id: receipt.id, outcome: receipt.outcome, detail: receipt.detail, badge: receipt.badge,
                  content: receipt.content.map(EncodedJSON.init), extensionRun: receipt.extensionRun.map(EncodedJSON.init),
                  presentation: receipt.presentation.map(EncodedJSON.init), activity: receipt.activity,
                  activityChange: receipt.activityChange.map(EncodedJSON.init), activityBudget: receipt.activityBudget,
                  activityProgress: receipt.activityProgress, widgetReload: receipt.widgetReload.map(EncodedJSON.init))
    }
}

extension DeviceLinkInbound {
    /// Reads one frame's body; throws with a sentence naming what is wrong when it is no message a device sends.
    public init(frame: ArraySlice<UInt8>) throws(DeviceLinkFraming.FramingError) {
        self = try Self.addressed(frame: frame).inbound
    }

    /// Reads one frame's body and the device it names on a shared link (``DeviceLinkFraming/addressKey``, `nil` when
    /// it names none), its members scanned once for both; throws as ``init(frame:)`` does, or when the device's name
    /// is not a string.
    public static func addressed(frame: ArraySlice<UInt8>) throws(DeviceLinkFraming.FramingError) -> (deviceID: String?, inbound: DeviceLinkInbound) {
        let read = frame.withUnsafeBytes { bytes -> Result<(String?, DeviceLinkInbound?), DeviceLinkFraming.FramingError> in
            guard let members = JSONObjectSyntax.members(bytes) else { return .success((nil, nil)) }
            let fields = DeviceLinkFields(bytes: bytes, members: members)
            do throws(DeviceLinkFraming.FramingError) {
                let deviceID = try fields.string(DeviceLinkFraming.addressKey, of: "device-link")
                switch fields.text("type") {
                case "\"ack\"": return .success((deviceID, .ack(try fields.ack())))
                case "\"receipt\"": return .success((deviceID, .receipt(try fields.receipt())))
                case "\"receipts\"": return .success((deviceID, .receipts(try fields.receipts())))
                default: return .success((deviceID, nil))
                }
            } catch {
                return .failure(error)
            }
        }
        switch read {
        case .success((let deviceID, let inbound?)): return (deviceID, inbound)
        case .success((let deviceID, nil)): return (deviceID, try decodeWhole(frame))
        case .failure(let error): throw error
        }
    }

    /// A message read through `JSONDecoder`, as the device wrote it, its receipts then made what the gateway keeps.
    private static func decodeWhole(_ frame: ArraySlice<UInt8>) throws(DeviceLinkFraming.FramingError) -> DeviceLinkInbound {
        let written: DeviceLinkMessage.Written
        do {
            written = try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(frame))
        } catch {
            throw DeviceLinkFraming.FramingError(description: "a frame is not a device-link message: \(error)")
        }
        return written.mapReceipts(ReceivedReceipt.init) { receipts in
            receipts.receipts.map { CarriedReceivedReceipt(device: $0.device, receipt: ReceivedReceipt($0.body)) }
        }
    }
}

extension DeviceLinkFields {
    func ack() throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Ack {
        let pending: Bool?
        switch value("pending") {
        case nil, .null?: pending = nil
        case .bool(let flag)?: pending = flag
        default: throw fail("ack", "pending", "\(shown("pending")), not true or false")
        }
        let forgotten: Bool?
        switch value("forgotten") {
        case nil, .null?: forgotten = nil
        case .bool(let flag)?: forgotten = flag
        default: throw fail("ack", "forgotten", "\(shown("forgotten")), not true or false")
        }
        return DeviceLinkMessage.Ack(id: try required("id", of: "ack"), pending: pending, forgotten: forgotten)
    }

    /// A receipt's member the gateway acts on, decoded through `Codable` (only `liveactivity` pushes carry these).
    private func decoded<Value: Decodable>(_ type: Value.Type, _ key: String) throws(DeviceLinkFraming.FramingError) -> Value? {
        guard let text = try object(key, of: "receipt") else { return nil }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        } catch {
            throw fail("receipt", key, "\(shown(key)), not a \(Value.self): \(error)")
        }
    }

    /// A receipt's activity, read by hand (``LiveActivity/init(json:)``): every Live Activity receipt has one.
    private func activity() throws(DeviceLinkFraming.FramingError) -> LiveActivity? {
        guard let slice = slice("activity"), slice.first != UInt8(ascii: "n") else { return nil }
        guard let object = JSONObjectSyntax.object(slice), let activity = LiveActivity(json: object) else {
            throw fail("receipt", "activity", "\(shown("activity")), not a LiveActivity")
        }
        return activity
    }

    /// A carried push's receipt's progress of its activity, read by hand (``LiveActivity/Progress/init(json:)``).
    private func activityProgress() throws(DeviceLinkFraming.FramingError) -> LiveActivity.Progress? {
        guard let slice = slice("activityProgress"), slice.first != UInt8(ascii: "n") else { return nil }
        guard let object = JSONObjectSyntax.object(slice), let progress = LiveActivity.Progress(json: object) else {
            throw fail("receipt", "activityProgress", "\(shown("activityProgress")), not a LiveActivity.Progress")
        }
        return progress
    }

    func receipt() throws(DeviceLinkFraming.FramingError) -> ReceivedReceipt {
        let outcomeName = try required("outcome", of: "receipt")
        guard let outcome = DeliveryOutcome(rawValue: outcomeName) else {
            throw fail("receipt", "outcome", "\"\(outcomeName)\", not one of "
                       + DeliveryOutcome.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var badge: DeviceLinkMessage.AppBadge?
        switch value("badge") {
        case nil, .null?: break
        case .object(let fields)?:
            guard let bundleID = fields["bundleID"]?.string, let count = fields["count"]?.integer else {
                throw fail("receipt", "badge", "\(shown("badge")), not {\"bundleID\": string, \"count\": integer}")
            }
            badge = DeviceLinkMessage.AppBadge(bundleID: bundleID, count: count)
        default:
            throw fail("receipt", "badge", "\(shown("badge")), not an object")
        }
        return ReceivedReceipt(id: try required("id", of: "receipt"), outcome: outcome,
                               detail: try string("detail", of: "receipt"), badge: badge,
                               content: try object("content", of: "receipt").map(EncodedJSON.init(unchecked:)),
                               extensionRun: try object("extension", of: "receipt").map(EncodedJSON.init(unchecked:)),
                               presentation: try object("presentation", of: "receipt").map(EncodedJSON.init(unchecked:)),
                               activity: try activity(),
                               activityChange: try object("activityChange", of: "receipt").map(EncodedJSON.init(unchecked:)),
                               activityBudget: try decoded(ActivityBudget.Report.self, "activityBudget"),
                               activityProgress: try activityProgress(),
                               widgetReload: try object("widgetReload", of: "receipt").map(EncodedJSON.init(unchecked:)))
    }
}
