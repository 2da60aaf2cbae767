import APNSimCore
import NIOCore

/// The way to the gateway of one device's session: its own link, or a link its process's devices share, where each
/// message about it names it (docs/device-link.md, "Shared links").
struct DeviceRoute: Sendable, Equatable {
    let channel: any Channel
    /// The device's ID on a shared link; `nil` on its own.
    var deviceID: String?

    init(channel: any Channel, deviceID: String? = nil) {
        self.channel = channel
        self.deviceID = deviceID
    }

    /// `messages` as the frames this route writes them.
    func frames(_ messages: [DeviceLinkMessage]) -> [UInt8] {
        messages.flatMap { DeviceLinkFraming.frame($0, deviceID: deviceID) }
    }

    static func == (lhs: DeviceRoute, rhs: DeviceRoute) -> Bool {
        lhs.channel === rhs.channel && lhs.deviceID == rhs.deviceID
    }
}
