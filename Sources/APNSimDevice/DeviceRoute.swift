import APNSimDeviceLink
import APNSimRules
import NIOCore

/// The way to the gateway of one device's session: its own link, or a link its process's devices share, where each
/// message about it names it (docs/device-link.md, "Shared links").
struct DeviceRoute: Sendable, Equatable {
    /// The link's outbox, which every message written from outside the link's reads goes through.
    let outbox: DeviceLinkOutbox
    /// The device's ID on a shared link; `nil` on its own.
    var deviceID: String?

    init(outbox: DeviceLinkOutbox, deviceID: String? = nil) {
        self.outbox = outbox
        self.deviceID = deviceID
    }

    /// `messages` as the frames this route writes them.
    func frames(_ messages: [DeviceLinkMessage.Written]) -> [UInt8] {
        messages.flatMap { DeviceLinkFraming.frame($0, deviceID: deviceID) }
    }

    /// `outgoing`'s messages as the frames this route writes them, each receipt written already framed from its bytes.
    func frames(_ outgoing: Outgoing) -> [UInt8] {
        guard !outgoing.written.isEmpty else { return frames(outgoing.messages) }
        return outgoing.messages.flatMap { message -> [UInt8] in
            if case .receipt(let receipt) = message, let written = outgoing.written[receipt.id] { return written.frame(deviceID: deviceID) }
            return DeviceLinkFraming.frame(message, deviceID: deviceID)
        }
    }

    static func == (lhs: DeviceRoute, rhs: DeviceRoute) -> Bool {
        lhs.outbox === rhs.outbox && lhs.deviceID == rhs.deviceID
    }
}

/// A device's messages for the gateway, and the receipts among them it has written already (``DeviceState/Actions/written``).
struct Outgoing: Sendable {
    var messages: [DeviceLinkMessage.Written] = []
    var written: [String: DeviceLinkMessage.Receipt.Compact] = [:]

    var isEmpty: Bool { messages.isEmpty }
}
