import NIOConcurrencyHelpers
import NIOCore

/// What a device process writes on one device link from outside the link's own reads: pending acks, the receipts of
/// finished extensions, the answers to carried pushes. Frames written from any thread gather here and go out together,
/// one write and one flush on the link's event loop for everything gathered since the last, instead of a task, a TLS
/// record and a system call for each (a rich push's pending ack and its receipt each took one, for every push, in
/// `Benchmarks/e2e.sh`'s rich run; docs/speed.md). Order is kept: every such frame passes through here.
///
/// A write that fails, or finds the link closed, hands each sender its messages back (``write(_:unsent:)``), which
/// keeps them for the next link, as a failed write always did.
final class DeviceLinkOutbox: Sendable {
    let channel: any Channel
    private let pending = NIOLockedValueBox(Pending())

    private struct Pending {
        var bytes: [UInt8] = []
        var unsent: [@Sendable () -> Void] = []
        /// A drain is queued on the link's event loop and will take what gathers.
        var draining = false
    }

    init(channel: any Channel) {
        self.channel = channel
    }

    /// Writes `frames`; `unsent` is called, on the link's event loop, when they could not be written.
    func write(_ frames: [UInt8], unsent: (@Sendable () -> Void)? = nil) {
        let startDrain = pending.withLockedValue { pending -> Bool in
            pending.bytes += frames
            if let unsent { pending.unsent.append(unsent) }
            defer { pending.draining = true }
            return !pending.draining
        }
        if startDrain { channel.eventLoop.execute { self.drain() } }
    }

    /// On the link's event loop: everything gathered, in one write.
    private func drain() {
        let (bytes, unsent) = pending.withLockedValue { pending in
            defer { pending = Pending() }
            return (pending.bytes, pending.unsent)
        }
        guard channel.isActive else {
            for sender in unsent { sender() }
            return
        }
        let written = channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        if !unsent.isEmpty {
            written.whenFailure { _ in for sender in unsent { sender() } }
        }
    }
}
