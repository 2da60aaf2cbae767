import APNSimRules
import Foundation

/// How device-link messages travel: each is a frame of a 4-byte big-endian length and that many bytes of
/// UTF-8 JSON (docs/device-link.md). ``Reader`` is a value that takes bytes as they arrive and hands back
/// whole messages, so it is tested without sockets.
public enum DeviceLinkFraming {
    /// The largest frame either side accepts: a 5 KB VoIP payload, escaped, with room for the envelope.
    public static let maximumFrameLength = 64 * 1024

    /// `message` as a frame: its length, then its JSON. A `carry` too large for one frame is split into as many as it
    /// needs, one after the other.
    public static func frame(_ message: DeviceLinkMessage.ToDevice) -> [UInt8] {
        switch message {
        case .push(let delivery): return framed(written(delivery))
        // Pushes for many devices go in as many frames as they need, each within the limit.
        case .carry(let carry): return carryFrames(carry.pushes).flatMap(framed)
        case .welcome, .registered, .install, .uninstall, .foreground, .restart, .focus, .summary, .deliverSummary,
             .startActivity, .endActivity, .interact, .heartbeat, .heartbeatAck, .error:
            return framed(Array(try! JSONEncoder().encode(message)))  // every message is plain Codable data
        }
    }

    /// `message` as a frame; `receipts` too large for one frame are split into as many as they need.
    public static func frame(_ message: DeviceLinkMessage.Written) -> [UInt8] {
        switch message {
        case .ack(let ack): return framed(written(ack))
        case .receipt(let receipt): return framed(written(receipt))
        case .receipts(let receipts): return receiptFrames(receipts.receipts).flatMap(framed)
        case .hello, .link, .register, .unregister, .installRefused, .attachmentCopy, .interacted, .summarized, .activities,
             .heartbeat, .heartbeatAck, .error:
            return framed(Array(try! JSONEncoder().encode(message)))  // every message is plain Codable data
        }
    }

    /// A `push`, the message of every push, written by hand (``JSONWriter``) as `Codable` would write it; with
    /// `device`, an element of a `carry` instead (no `type`, the device it is for).
    /// `address`: the device it is for on a shared link, its first member (``frame(_:deviceID:)``).
    static func written(_ delivery: DeviceLinkMessage.Delivery, device: String? = nil, address: String? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: delivery.payload.utf8.count + 256)
        json.field("deviceID", address)
        if let device { json.field("device", device) } else { json.field("type", "push") }
        json.field("id", delivery.id)
        json.field("token", delivery.token.hex)
        write(DeviceLinkMessage.Carry.Common(delivery), to: &json)
        json.field("activity", delivery.activity)
        return json.finish()
    }

    /// An `ack`, which a device sends for every push, written by hand as `Codable` would write it.
    static func written(_ ack: DeviceLinkMessage.Ack, address: String? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: 80)
        json.field("deviceID", address)
        json.field("type", "ack")
        json.field("id", ack.id)
        json.field("pending", ack.pending)
        json.field("forgotten", ack.forgotten)
        return json.finish()
    }

    /// A frame's body as a message to a device: a `push` or `carry` read by hand (``DeviceLinkFields``), every other
    /// message by `JSONDecoder`; throws with a sentence saying what is wrong.
    static func decode(_ body: ArraySlice<UInt8>) throws(FramingError) -> DeviceLinkMessage.ToDevice {
        try decodeAddressed(body).message
    }

    /// ``decode(_:)``, and the device the body names on a shared link (``addressKey``), from one scan of its members
    /// when it is read by hand (a `push`, on every push's path).
    static func decodeAddressed(_ body: ArraySlice<UInt8>) throws(FramingError) -> (deviceID: String?, message: DeviceLinkMessage.ToDevice) {
        let byHand = body.withUnsafeBytes { bytes -> Result<(String?, DeviceLinkMessage.ToDevice), FramingError>? in
            guard let members = JSONObjectSyntax.members(bytes) else { return nil }
            let fields = DeviceLinkFields(bytes: bytes, members: members)
            do throws(FramingError) {
                switch fields.text("type") {
                case "\"push\"": return .success((try fields.string(addressKey, of: "device-link"), .push(try fields.push())))
                case "\"carry\"": return .success((try fields.string(addressKey, of: "device-link"), .carry(try fields.carry())))
                default: return nil
                }
            } catch {
                return .failure(error)
            }
        }
        if let byHand { return try byHand.get() }
        let deviceID = try deviceID(in: body)
        do {
            return (deviceID, try JSONDecoder().decode(DeviceLinkMessage.ToDevice.self, from: Data(body)))
        } catch {
            throw FramingError(description: "a frame is not a device-link message: \(error)")
        }
    }

    public struct FramingError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public struct Reader: Sendable {
        private var buffer: [UInt8] = []
        private var start = 0

        public init() {}

        public mutating func append(_ bytes: some Sequence<UInt8>) {
            // The bytes already read go once they are half the buffer. Kept until the buffer was read to its end, they
            // stayed for as long as a link's stream never paused between frames: a device process taking 25,000 pushes
            // in one go held every byte of them (about 200 MB) and a busy gateway its receipts.
            if start > 0, start >= buffer.count / 2 {
                buffer.removeSubrange(..<start)
                start = 0
            }
            buffer.append(contentsOf: bytes)
        }

        /// Bytes the reader holds, read or not (for tests of its bound).
        var heldBytes: Int { buffer.count }

        /// The next whole message to a device, `nil` when more bytes are needed; throws when the bytes cannot be one
        /// (the link then ends with an `error` message).
        public mutating func next() throws(FramingError) -> DeviceLinkMessage.ToDevice? {
            try nextFrame().map { body throws(FramingError) in try DeviceLinkFraming.decode(body) }
        }

        /// The next whole message as the gateway reads a device's (``DeviceLinkInbound``).
        public mutating func nextInbound() throws(FramingError) -> DeviceLinkInbound? {
            try nextFrame().map { body throws(FramingError) in try DeviceLinkInbound(frame: body) }
        }

        /// The next whole frame's body, `nil` when more bytes are needed.
        mutating func nextBody() throws(FramingError) -> ArraySlice<UInt8>? { try nextFrame() }

        private mutating func nextFrame() throws(FramingError) -> ArraySlice<UInt8>? {
            guard buffer.count - start >= 4 else { return nil }
            let length = buffer[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= DeviceLinkFraming.maximumFrameLength else {
                throw FramingError(description: "a frame of \(length) bytes is over the \(DeviceLinkFraming.maximumFrameLength)-byte limit")
            }
            guard buffer.count - start >= 4 + length else { return nil }
            let body = buffer[(start + 4)..<(start + 4 + length)]
            start += 4 + length
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: true)
                start = 0
            }
            return body
        }
    }
}
