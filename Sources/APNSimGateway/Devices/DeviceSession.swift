import APNSimCore
import NIOCore
import Synchronization

/// One live device link: sends messages to the device from any thread.
///
/// Messages sent from other threads (the provider connections' event loops route pushes here) gather in an outbox
/// and go out together: one write and one flush on the link's event loop for everything sent since the last one,
/// instead of a task, a TLS record and a system call per push (a tenth of the gateway's time in
/// `Benchmarks/e2e.sh` profiles). Order is kept: every message passes through the outbox.
final class DeviceSession: Sendable {
    let descriptor: DeviceDescriptor
    /// The process the device runs in (`hello.host`): a broadcast for several of its devices may go on one link.
    let host: String?
    private let channel: any Channel
    private let outbox = Mutex(Outbox())

    private struct Outbox {
        var bytes: [UInt8] = []
        /// A drain is queued on the link's event loop and will take `bytes`.
        var draining = false
    }

    init(descriptor: DeviceDescriptor, host: String? = nil, channel: any Channel) {
        self.descriptor = descriptor
        self.host = host
        self.channel = channel
    }

    /// Sends `message`. With `atOnce`, on the link's own event loop, it is written now, with everything gathered
    /// before it, instead of after the loop's other queued work (a broadcast's share, made on its carrier's loop).
    func send(_ message: DeviceLinkMessage, atOnce: Bool = false) {
        let frame = DeviceLinkFraming.frame(message)
        let startDrain = outbox.withLock { outbox -> Bool in
            outbox.bytes += frame
            defer { outbox.draining = true }
            return !outbox.draining
        }
        if atOnce, channel.eventLoop.inEventLoop { return drain() }
        guard startDrain else { return }
        channel.eventLoop.execute { self.drain() }
    }

    /// The event loop the link writes on.
    var eventLoop: any EventLoop { channel.eventLoop }

    private func drain() {
        let bytes = outbox.withLock { outbox -> [UInt8] in
            outbox.draining = false
            defer { outbox.bytes = [] }
            return outbox.bytes
        }
        guard !bytes.isEmpty else { return }  // written at once already
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
    }

    /// Ends the link (a `deviceLink` fault); the device reconnects as after any network loss.
    func close() {
        channel.close(promise: nil)
    }

    var isSameLink: ObjectIdentifier { ObjectIdentifier(channel) }
}
