import Foundation

/// How device-link messages travel: each is a frame of a 4-byte big-endian length and that many bytes of
/// UTF-8 JSON (docs/device-link.md). ``Reader`` is a value that takes bytes as they arrive and hands back
/// whole messages, so it is tested without sockets.
public enum DeviceLinkFraming {
    /// The largest frame either side accepts: a 5 KB VoIP payload, escaped, with room for the envelope.
    public static let maximumFrameLength = 64 * 1024

    public static func frame(_ message: DeviceLinkMessage) -> [UInt8] {
        let body = try! JSONEncoder().encode(message)  // every message is plain Codable data
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
    }

    public struct FramingError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    public struct Reader: Sendable {
        private var buffer: [UInt8] = []
        private var start = 0

        public init() {}

        public mutating func append(_ bytes: some Sequence<UInt8>) {
            buffer.append(contentsOf: bytes)
        }

        /// The next whole message, `nil` when more bytes are needed; throws when the bytes cannot be a message
        /// (the link then ends with an `error` message).
        public mutating func next() throws(FramingError) -> DeviceLinkMessage? {
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
            do {
                return try JSONDecoder().decode(DeviceLinkMessage.self, from: Data(body))
            } catch {
                throw FramingError(description: "a frame is not a device-link message: \(error)")
            }
        }
    }
}
