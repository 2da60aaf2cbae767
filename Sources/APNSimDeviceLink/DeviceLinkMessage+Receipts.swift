import APNSimRules
import Foundation

extension DeviceLinkMessage {
    /// Device → gateway: the receipts of carried pushes, each naming its device (docs/device-link.md, "Carried pushes").
    ///
    /// The receipts of one broadcast's pushes differ only in their device, ID, detail and activity: what they share is
    /// written once, as `common` (one of them, whole), and each element of `receipts` holds its own fields alone
    /// (``Own``). Receipts that share less are written whole, with no `common`. With every receipt whole, a broadcast to
    /// 1,000 devices took 21 ms and 22.4 ms of the gateway's CPU; this way, 18 ms and 18.0 (`Benchmarks/broadcast.sh 41`,
    /// medians; CPU from the gateway's threads' run times over 60 rounds).
    public struct Receipts: Sendable, Hashable, Codable {
        public var receipts: [CarriedReceipt]
        public init(receipts: [CarriedReceipt]) { self.receipts = receipts }

        /// A receipt's own fields beside ``common``: its device, ID and detail, and the ID of its activity, which
        /// replaces the common one's in `activityChange` and `activityProgress`.
        struct Own: Codable, Hashable {
            var device: String
            var id: String
            var detail: String?
            var activityID: String?

            init(_ carried: CarriedReceipt) {
                device = carried.device
                id = carried.body.id
                detail = carried.body.detail
                activityID = carried.body.activityProgress?.id ?? carried.body.activityChange?.id
            }

            /// The receipt these fields make with `common`.
            func receipt(with common: Receipt) -> CarriedReceipt {
                var receipt = common
                receipt.id = id
                receipt.detail = detail
                if let activityID {
                    receipt.activityChange?.id = activityID
                    receipt.activityProgress?.id = activityID
                }
                return CarriedReceipt(device: device, body: receipt)
            }
        }

        /// `carried`'s own fields, when they and `common` make it whole again.
        static func own(_ carried: CarriedReceipt, sharing common: Receipt) -> Own? {
            let own = Own(carried)
            return own.receipt(with: common) == carried ? own : nil
        }

        private enum CodingKeys: String, CodingKey { case common, receipts }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let common = try container.decodeIfPresent(Receipt.self, forKey: .common) else {
                receipts = try container.decode([CarriedReceipt].self, forKey: .receipts)
                return
            }
            receipts = try container.decode([Own].self, forKey: .receipts).map { $0.receipt(with: common) }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            guard receipts.count > 1, let common = receipts.first?.body else { return try container.encode(receipts, forKey: .receipts) }
            let owns = receipts.compactMap { Self.own($0, sharing: common) }
            guard owns.count == receipts.count else { return try container.encode(receipts, forKey: .receipts) }
            try container.encode(common, forKey: .common)
            try container.encode(owns, forKey: .receipts)
        }
    }
}

extension DeviceLinkFraming {
    /// `receipts` as `receipts` frames' bodies, as many to a frame as fit within ``maximumFrameLength``. Receipts in a
    /// row that share all but their own fields (``DeviceLinkMessage/Receipts``) go in frames with their `common`; the
    /// others go whole.
    public static func receiptFrames(_ receipts: [DeviceLinkMessage.CarriedReceipt]) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        var alone: [[UInt8]] = []  // receipts that share nothing with the next, written whole
        var start = receipts.startIndex
        while start < receipts.endIndex {
            let common = receipts[start].body
            var owns: [DeviceLinkMessage.Receipts.Own] = []
            for carried in receipts[(start + 1)...] {
                guard let own = DeviceLinkMessage.Receipts.own(carried, sharing: common) else { break }
                owns.append(own)
            }
            if owns.isEmpty {
                alone.append(written(common, device: receipts[start].device))
            } else {
                frames += bodies(type: "receipts", key: "receipts", alone)
                alone = []
                owns.insert(DeviceLinkMessage.Receipts.Own(receipts[start]), at: 0)
                frames += bodies(type: "receipts", common: written(common), key: "receipts", owns.map(written))
            }
            start += owns.isEmpty ? 1 : owns.count
        }
        return frames + bodies(type: "receipts", key: "receipts", alone)
    }

    private static func written(_ own: DeviceLinkMessage.Receipts.Own) -> [UInt8] {
        var json = JSONWriter(capacity: 160)
        json.field("device", own.device)
        json.field("id", own.id)
        json.field("detail", own.detail)
        json.field("activityID", own.activityID)
        return json.finish()
    }
}

extension DeviceLinkFields {
    /// A `receipts`, read by hand as a `receipt` is; with a `common`, each element's own fields with it.
    func receipts() throws(DeviceLinkFraming.FramingError) -> [CarriedReceivedReceipt] {
        var receipts: [CarriedReceivedReceipt] = []
        let elements = try objects("receipts", of: "receipts")
        receipts.reserveCapacity(elements.count)
        guard let commonFields = try nested("common", of: "receipts") else {
            for fields in elements {
                receipts.append(CarriedReceivedReceipt(device: try fields.required("device", of: "receipts"), receipt: try fields.receipt()))
            }
            return receipts
        }
        let common = try commonFields.receipt()
        let change = common.activityChange.map { ObjectText(withoutID: $0.text) }
        for fields in elements {
            var receipt = common
            receipt.id = try fields.required("id", of: "receipts")
            receipt.detail = try fields.string("detail", of: "receipts")
            if let activity = try fields.string("activityID", of: "receipts") {
                if let change { receipt.activityChange = EncodedJSON(unchecked: change.text(id: activity)) }
                receipt.activityProgress?.id = activity
            }
            receipts.append(CarriedReceivedReceipt(device: try fields.required("device", of: "receipts"), receipt: receipt))
        }
        return receipts
    }
}

/// An object's JSON text with its `id` member set to each of many IDs in turn, its other members as written (a
/// `receipts` message's common activity change, for each receipt's activity): the text is read once, not once a receipt.
private struct ObjectText {
    /// `,"key":value` for each member but `id`, as written.
    private var rest: [UInt8] = []

    /// `text` is an object's text the receipt reader has checked.
    init(withoutID text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            for member in JSONObjectSyntax.members(bytes) ?? [] where member.key != "id" {
                rest.append(UInt8(ascii: ","))
                JSONWriter.appendString(member.key, to: &rest)
                rest.append(UInt8(ascii: ":"))
                rest.append(contentsOf: bytes[member.value])
            }
        }
    }

    func text(id: String) -> String {
        var bytes: [UInt8] = Array(#"{"id":"#.utf8)
        bytes.reserveCapacity(rest.count + id.utf8.count + 16)
        JSONWriter.appendString(id, to: &bytes)
        bytes += rest
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A carried push's receipt as the gateway keeps it, with the device it is from.
public struct CarriedReceivedReceipt: Sendable, Hashable {
    public var device: String
    public var receipt: ReceivedReceipt
    public init(device: String, receipt: ReceivedReceipt) {
        self.device = device
        self.receipt = receipt
    }
}
