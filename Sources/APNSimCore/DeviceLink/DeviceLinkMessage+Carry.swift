import Foundation

/// Pushes and receipts for several devices of one process in one frame (docs/device-link.md, "Carried pushes"). A
/// process that hosts many devices (`apnsim device --count`) names itself in each device's `hello` (`host`); a
/// broadcast that reaches several of them goes to the process once, on one of their links, instead of once per
/// device, and their receipts come back together. Each push is still held for its own device until its receipt.
extension DeviceLinkMessage {
    /// Gateway → device: pushes for devices of the process the link's device runs in.
    public struct Carry: Sendable, Hashable, Codable {
        public var pushes: [CarriedPush]
        public init(pushes: [CarriedPush]) { self.pushes = pushes }
    }

    /// Device → gateway: the receipts of carried pushes, each naming its device.
    public struct Receipts: Sendable, Hashable, Codable {
        public var receipts: [CarriedReceipt]
        public init(receipts: [CarriedReceipt]) { self.receipts = receipts }
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

extension DeviceLinkFraming {
    /// Room left in a frame for its envelope (`{"type":"carry","pushes":[…]}`) and the frame's length.
    static let envelopeAllowance = 64

    /// `pushes` as `carry` frames' bodies, as many to a frame as fit within ``maximumFrameLength``; a push too large to
    /// share a frame goes in one of its own.
    public static func carryFrames(_ pushes: [DeviceLinkMessage.CarriedPush]) -> [[UInt8]] {
        bodies(type: "carry", key: "pushes", pushes.map { written($0.body, device: $0.device) })
    }

    /// `receipts` as `receipts` frames' bodies, as many to a frame as fit within ``maximumFrameLength``.
    public static func receiptFrames(_ receipts: [DeviceLinkMessage.CarriedReceipt]) -> [[UInt8]] {
        bodies(type: "receipts", key: "receipts", receipts.map { written($0.body, device: $0.device) })
    }

    /// `{"type": TYPE, KEY: [elements…]}` bodies, as many elements to one as fit within ``maximumFrameLength``.
    private static func bodies(type: String, key: StaticString, _ elements: [[UInt8]]) -> [[UInt8]] {
        var bodies: [[UInt8]] = []
        var share: [[UInt8]] = []
        var size = envelopeAllowance
        func flush() {
            guard !share.isEmpty else { return }
            var json = JSONWriter(capacity: size)
            json.field("type", type)
            json.field(key, elements: share)
            bodies.append(json.finish())
            (share, size) = ([], envelopeAllowance)
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
        guard let slice = slice(key), let elements = JSONObjectSyntax.elements(slice) else {
            throw fail(message, key, text(key) == nil ? "missing" : "\(shown(key)), not an array")
        }
        var objects: [DeviceLinkFields] = []
        objects.reserveCapacity(elements.count)
        for element in elements {
            let bytes = UnsafeRawBufferPointer(rebasing: slice[element])
            guard let members = JSONObjectSyntax.members(bytes) else { throw fail(message, key, "an array with an element that is not an object") }
            objects.append(DeviceLinkFields(bytes: bytes, members: members))
        }
        return objects
    }

    /// A `carry`, read by hand as `Codable` reads it.
    func carry() throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Carry {
        var pushes: [DeviceLinkMessage.CarriedPush] = []
        for fields in try objects("pushes", of: "carry") {
            pushes.append(.init(device: try fields.required("device", of: "carry"), body: try fields.push()))
        }
        return DeviceLinkMessage.Carry(pushes: pushes)
    }

    /// A `receipts`, read by hand as a `receipt` is.
    func receipts() throws(DeviceLinkFraming.FramingError) -> [CarriedReceivedReceipt] {
        var receipts: [CarriedReceivedReceipt] = []
        for fields in try objects("receipts", of: "receipts") {
            receipts.append(CarriedReceivedReceipt(device: try fields.required("device", of: "receipts"), receipt: try fields.receipt()))
        }
        return receipts
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
