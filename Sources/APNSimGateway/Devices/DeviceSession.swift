import APNSimCore
import NIOCore

/// One live device link: sends messages to the device from any thread.
final class DeviceSession: Sendable {
    let descriptor: DeviceDescriptor
    private let channel: any Channel

    init(descriptor: DeviceDescriptor, channel: any Channel) {
        self.descriptor = descriptor
        self.channel = channel
    }

    func send(_ message: DeviceLinkMessage) {
        let frame = DeviceLinkFraming.frame(message)
        channel.writeAndFlush(channel.allocator.buffer(bytes: frame), promise: nil)
    }

    /// Ends the link (a `deviceLink` fault); the device reconnects as after any network loss.
    func close() {
        channel.close(promise: nil)
    }

    var isSameLink: ObjectIdentifier { ObjectIdentifier(channel) }
}
