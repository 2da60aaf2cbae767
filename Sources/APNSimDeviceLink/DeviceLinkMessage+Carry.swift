import APNSimRules
import Foundation

/// Pushes and receipts for several devices of one process in one frame (docs/device-link.md, "Carried pushes"). A
/// process that hosts many devices (`apnsim device --count`) names itself in each device's `hello` (`host`); a
/// broadcast that reaches several of them goes to the process once, on one of their links, instead of once per
/// device, and their receipts come back together. Each push is still held for its own device until its receipt.
extension DeviceLinkMessage {
    /// Gateway → device: pushes for devices of the process the link's device runs in.
    ///
    /// The pushes of one broadcast differ only in their device, ID, token and activity: what they share (``Common``:
    /// the payload, above all) is written once, as `common`, and each element of `pushes` holds its own fields alone.
    /// Pushes that share less are written whole, with no `common`.
    public struct Carry: Sendable, Hashable, Codable {
        public var pushes: [CarriedPush]
        public init(pushes: [CarriedPush]) { self.pushes = pushes }

        /// What a push shares with the others of its broadcast: everything but its ID, token and activity.
        public struct Common: Sendable, Hashable, Codable {
            public var apnsID: String
            public var bundleID: String
            public var pushType: PushType
            public var priority: Int
            public var collapseID: String?
            public var payload: String
            public var channel: String?

            func delivery(id: String, token: DeviceToken, activity: String?) -> Delivery {
                Delivery(id: id, apnsID: apnsID, token: token, bundleID: bundleID, pushType: pushType, priority: priority,
                         collapseID: collapseID, payload: payload, channel: channel, activity: activity)
            }
        }

        /// What every one of `pushes` shares, when they share it.
        static func common(of pushes: [CarriedPush]) -> Common? {
            guard let first = pushes.first.map({ Common($0.body) }) else { return nil }
            return pushes.dropFirst().allSatisfy { Common($0.body) == first } ? first : nil
        }

        /// A push's own fields beside ``Common``.
        private struct Own: Codable {
            var device: String
            var id: String
            var token: DeviceToken
            var activity: String?
        }

        private enum CodingKeys: String, CodingKey { case common, pushes }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let common = try container.decodeIfPresent(Common.self, forKey: .common) else {
                pushes = try container.decode([CarriedPush].self, forKey: .pushes)
                return
            }
            pushes = try container.decode([Own].self, forKey: .pushes).map {
                CarriedPush(device: $0.device, body: common.delivery(id: $0.id, token: $0.token, activity: $0.activity))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            guard let common = Self.common(of: pushes) else { return try container.encode(pushes, forKey: .pushes) }
            try container.encode(common, forKey: .common)
            try container.encode(pushes.map { Own(device: $0.device, id: $0.body.id, token: $0.body.token, activity: $0.body.activity) },
                                 forKey: .pushes)
        }
    }

    /// A push and the device it is for, written as the push's fields with `device` beside them.
    public typealias CarriedPush = ForDevice<Delivery>
    /// A receipt and the device it is from, written as the receipt's fields with `device` beside them.
    public typealias CarriedReceipt = ForDevice<Receipt>

    /// A message's body for one of several devices, written as the body's own fields with `device` beside them.
    public struct ForDevice<Body: Codable & Hashable & Sendable>: Sendable, Hashable, Codable {
        public var device: String
        public var body: Body
        public init(device: String, body: Body) {
            self.device = device
            self.body = body
        }

        private enum CodingKeys: String, CodingKey { case device }

        public init(from decoder: any Decoder) throws {
            body = try Body(from: decoder)
            device = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .device)
        }

        public func encode(to encoder: any Encoder) throws {
            try body.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(device, forKey: .device)
        }
    }
}

extension DeviceLinkMessage.Carry.Common {
    /// What `delivery` shares with the others of its broadcast. (Here, so the memberwise initializer stays.)
    init(_ delivery: DeviceLinkMessage.Delivery) {
        self.init(apnsID: delivery.apnsID, bundleID: delivery.bundleID, pushType: delivery.pushType, priority: delivery.priority,
                  collapseID: delivery.collapseID, payload: delivery.payload, channel: delivery.channel)
    }
}

extension DeviceLinkFraming {
    /// Room left in a frame for its envelope (`{"type":"carry","pushes":[…]}`) and the frame's length.
    static let envelopeAllowance = 64

    /// `pushes` as `carry` frames' bodies, as many to a frame as fit within ``maximumFrameLength``; a push too large to
    /// share a frame goes in one of its own.
    public static func carryFrames(_ pushes: [DeviceLinkMessage.CarriedPush]) -> [[UInt8]] {
        guard let common = DeviceLinkMessage.Carry.common(of: pushes) else {
            return bodies(type: "carry", key: "pushes", pushes.map { written($0.body, device: $0.device) })
        }
        return bodies(type: "carry", common: written(common), key: "pushes", pushes.map { push in
            var json = JSONWriter(capacity: 160)
            json.field("device", push.device)
            json.field("id", push.body.id)
            json.field("token", push.body.token.hex)
            json.field("activity", push.body.activity)
            return json.finish()
        })
    }

    private static func written(_ common: DeviceLinkMessage.Carry.Common) -> [UInt8] {
        var json = JSONWriter(capacity: common.payload.utf8.count + 160)
        write(common, to: &json)
        return json.finish()
    }

    /// The fields of a push that the pushes of a broadcast share, in a `push`, in a carried push, or once in a `carry`.
    static func write(_ common: DeviceLinkMessage.Carry.Common, to json: inout JSONWriter) {
        json.field("apnsID", common.apnsID)
        json.field("bundleID", common.bundleID)
        json.field("pushType", common.pushType.rawValue)
        json.field("priority", common.priority)
        json.field("collapseID", common.collapseID)
        json.field("payload", common.payload)
        json.field("channel", common.channel)
    }

    /// `{"type": TYPE, "common": COMMON, KEY: [elements…]}` bodies (COMMON in each, when given), as many elements to one
    /// as fit within ``maximumFrameLength``.
    static func bodies(type: String, common: [UInt8]? = nil, key: StaticString, _ elements: [[UInt8]]) -> [[UInt8]] {
        let envelope = envelopeAllowance + (common?.count ?? 0)
        var bodies: [[UInt8]] = []
        var share: [[UInt8]] = []
        var size = envelope
        func flush() {
            guard !share.isEmpty else { return }
            var json = JSONWriter(capacity: size)
            json.field("type", type)
            json.field("common", object: common)
            json.field(key, elements: share)
            bodies.append(json.finish())
            (share, size) = ([], envelope)
        }
        for element in elements {
            if size + element.count + 1 > maximumFrameLength { flush() }
            share.append(element)
            size += element.count + 1
        }
        flush()
        return bodies
    }

    /// A body with its 4-byte length before it.
    public static func framed(_ body: [UInt8]) -> [UInt8] {
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }
}

extension DeviceLinkFields {
    /// Each element of the array `key` holds, as the fields of an object; throws naming the key when it is no array of
    /// objects.
    func objects(_ key: String, of message: String) throws(DeviceLinkFraming.FramingError) -> [DeviceLinkFields] {
        guard let slice = slice(key) else { throw fail(message, key, "missing") }
        guard let objects = JSONObjectSyntax.objectElements(slice) else {
            throw fail(message, key, JSONObjectSyntax.elements(slice) == nil ? "\(shown(key)), not an array" : "an array with an element that is not an object")
        }
        return objects.map { DeviceLinkFields(bytes: slice, members: $0) }
    }

    /// A `carry`, read by hand as `Codable` reads it.
    func carry() throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Carry {
        var common: DeviceLinkMessage.Carry.Common?
        if let fields = try nested("common", of: "carry") { common = try fields.shared(of: "carry") }
        var pushes: [DeviceLinkMessage.CarriedPush] = []
        for fields in try objects("pushes", of: "carry") {
            // A broadcast's pushes share all but their own fields (``DeviceLinkMessage/Carry``): those are read once.
            let body = if let common { try fields.own(with: common, of: "carry") } else { try fields.push() }
            pushes.append(.init(device: try fields.required("device", of: "carry"), body: body))
        }
        return DeviceLinkMessage.Carry(pushes: pushes)
    }

    /// The fields of the object `key` holds; `nil` when it is absent or null.
    func nested(_ key: String, of message: String) throws(DeviceLinkFraming.FramingError) -> DeviceLinkFields? {
        guard let slice = slice(key), slice.first != UInt8(ascii: "n") else { return nil }
        guard let members = JSONObjectSyntax.members(slice) else { throw fail(message, key, "\(shown(key)), not an object") }
        return DeviceLinkFields(bytes: slice, members: members)
    }
}
