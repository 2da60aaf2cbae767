import APNSimDeviceLink
import APNSimRules
import NIOCore
import Synchronization

/// One device on one device link: sends it messages from any thread. A device has its own link, or shares one with
/// the other devices of its process (docs/device-link.md, "Shared links"); then each message names it (``address``),
/// and its session can end while the link stays up.
final class DeviceSession: Sendable {
    let descriptor: DeviceDescriptor
    /// The process the device runs in (`hello.host`): a broadcast for several of its devices may go on one link.
    let host: String?
    let link: DeviceLinkWriter
    /// The device's ID in each message about it, on a shared link; `nil` on its own link.
    let address: String?

    init(descriptor: DeviceDescriptor, host: String? = nil, link: DeviceLinkWriter, address: String? = nil) {
        self.descriptor = descriptor
        self.host = host
        self.link = link
        self.address = address
    }

    /// A device on a link of its own.
    convenience init(descriptor: DeviceDescriptor, host: String? = nil, channel: any Channel, limit: Int = .max) {
        self.init(descriptor: descriptor, host: host, link: DeviceLinkWriter(channel: channel, limit: limit))
    }

    /// Sends `message` (see ``DeviceLinkWriter/write(_:atOnce:)``); one about the link itself (a `carry`) names no device.
    func send(_ message: DeviceLinkMessage.ToDevice, atOnce: Bool = false) {
        link.write(DeviceLinkFraming.frame(message, deviceID: address), atOnce: atOnce)
    }

    /// The event loop the link writes on.
    var eventLoop: any EventLoop { link.eventLoop }

    /// Ends the device's session (a `deviceLink` fault): its own link closes, or on a shared link it is told its session
    /// ended; either way the device links again as after any network loss.
    func close() {
        if let address {
            link.endSession(address)
        } else {
            link.close()
        }
    }

    var isSameLink: ObjectIdentifier { ObjectIdentifier(self) }
}

/// The writing end of one device link, shared by the sessions on it.
///
/// Frames written from other threads (the provider connections' event loops route pushes here) gather in an outbox and
/// go out together: one write and one flush on the link's event loop for everything written since the last one, instead
/// of a task, a TLS record and a system call per push (a tenth of the gateway's time in `Benchmarks/e2e.sh` profiles).
/// Order is kept: every frame passes through the outbox.
///
/// While the link holds more unread than its water mark (``GatewayConfiguration/deviceLinkBufferLimit``) the outbox
/// waits; once the outbox, waiting, holds more than the limit too, the device has stopped reading: the writer lets its
/// frames go and tells the link's handler (``Overflowed``), which ends the link. What was sent and not acknowledged goes
/// again on the device's next link, so nothing is lost and neither buffer grows without bound. What gathers while the
/// link has room (the pushes a device gets again when it links, all at once) goes to it whole, however large.
final class DeviceLinkWriter: Sendable {
    private let channel: any Channel
    private let limit: Int
    private let outbox = Mutex(Outbox())

    private struct Outbox {
        var bytes: [UInt8] = []
        /// A drain is queued on the link's event loop, or waits for the link to take more, and will take `bytes`.
        var draining = false
        /// The last drain found the link past its water mark: what gathers now counts against the limit.
        var waitingForRoom = false
        /// The outbox passed the limit: the link is ending, and frames written to it go nowhere.
        var overflowed = false
    }

    /// Sent through the link's pipeline when the outbox passes the limit.
    struct Overflowed: Sendable {}

    init(channel: any Channel, limit: Int = .max) {
        self.channel = channel
        self.limit = limit
    }

    /// Writes `frame`. With `atOnce`, on the link's own event loop, it is written now, with everything gathered before
    /// it, instead of after the loop's other queued work (a broadcast's share, made on its carrier's loop).
    func write(_ frame: [UInt8], atOnce: Bool = false) {
        let (startDrain, overflowed) = outbox.withLock { outbox -> (Bool, Bool) in
            guard !outbox.overflowed else { return (false, false) }
            outbox.bytes += frame
            guard !outbox.waitingForRoom || outbox.bytes.count <= limit else {
                outbox.overflowed = true
                outbox.bytes = []
                return (false, true)
            }
            defer { outbox.draining = true }
            return (!outbox.draining, false)
        }
        if overflowed {
            channel.pipeline.fireUserInboundEventTriggered(Overflowed())
            return
        }
        if atOnce, channel.eventLoop.inEventLoop { return drain() }
        guard startDrain else { return }
        channel.eventLoop.execute { self.drain() }
    }

    var eventLoop: any EventLoop { channel.eventLoop }

    /// On the link's event loop.
    private func drain() {
        // A link past its water mark takes nothing more until it is under it again (``writabilityChanged()``).
        guard channel.isWritable else {
            outbox.withLock { $0.waitingForRoom = true }
            return
        }
        let bytes = outbox.withLock { outbox -> [UInt8] in
            outbox.draining = false
            outbox.waitingForRoom = false
            defer { outbox.bytes = [] }
            return outbox.bytes
        }
        guard !bytes.isEmpty else { return }  // written at once already
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    /// The link's writability changed (its handler says so, on its event loop): with room again, what waited goes.
    func writabilityChanged() {
        if channel.isWritable { drain() }
    }

    func close() {
        channel.close(promise: nil)
    }

    /// Ends the session of device `deviceID` on this shared link (``DeviceLinkHandler`` does, on the link's loop).
    func endSession(_ deviceID: String) {
        channel.pipeline.fireUserInboundEventTriggered(DeviceLinkHandler.EndSession(deviceID: deviceID))
    }
}
