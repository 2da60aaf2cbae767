import APNSimRules
import Foundation

/// A receipt kept for later in as few bytes as it can be: the JSON of its `receipt` message. A device remembers its
/// newest receipts to answer a push sent again with the same one (docs/device-link.md, `ack`); kept as values they
/// took 752 bytes each before their strings, four times that in a dictionary's spare room, and were most of what a
/// device with a few pushes cost (`Benchmarks/scale.sh`).
extension DeviceLinkMessage.Receipt {
    public struct Compact: Sendable, Hashable {
        private let json: [UInt8]

        public init(_ receipt: DeviceLinkMessage.Receipt) {
            // Copied to its own size: the writer starts with room for 512 bytes, twice what most receipts take, and
            // `Array(_:)` of the whole would keep that room.
            let written = DeviceLinkFraming.written(receipt)
            json = [UInt8](unsafeUninitializedCapacity: written.count) { buffer, count in
                count = buffer.initialize(fromContentsOf: written)
            }
        }

        /// The receipt again, as it was.
        public var receipt: DeviceLinkMessage.Receipt {
            // The bytes were written from a receipt by the framing that reads them, so they read back.
            guard case .receipt(let receipt)? = try? JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(json)) else {
                preconditionFailure("a compact receipt did not read back: \(String(decoding: json, as: UTF8.self))")
            }
            return receipt
        }

        /// The bytes it keeps.
        public var byteCount: Int { json.count }

        /// The frame ``DeviceLinkFraming/frame(_:deviceID:)`` writes for the receipt, naming `deviceID` on a shared
        /// link, made from the bytes kept: a device sends the answer it has just kept without writing it a second
        /// time (20,000 instructions a push, `Benchmarks/instructions.sh`, the display path).
        public func frame(deviceID: String?) -> [UInt8] {
            guard let deviceID else { return DeviceLinkFraming.framed(json) }
            return DeviceLinkFraming.framed(object: json, naming: deviceID)
        }
    }
}
