import APNSimDeviceLink
import APNSimRules
import NIOCore

/// What the devices of one device link answer: the device of a link of its own (``DeviceHost``), or the devices of a
/// process that share one (``SharedDeviceLink``). Called on the link's event loop.
protocol DeviceLinkPeer: Sendable {
    /// Device `device`'s answer to `message` (the link's own device when `nil`), as frames; throwing ends that device's
    /// session (on its own link, the link).
    func deliver(_ message: DeviceLinkMessage.ToDevice, to device: String?) throws -> [UInt8]
    /// Pushes for several of the process's devices, answered through the link's outbox.
    func carry(_ carry: DeviceLinkMessage.Carry)
    /// Device `device`'s session on a shared link ended (`reason`, its error's); the link stays up.
    func sessionEnded(_ device: String, reason: String)
    /// A message the link has no device for, in a sentence.
    func misplaced(_ sentence: String)
}

/// The device's end of one device link (docs/device-link.md), on its channel's event loop: bytes in, messages through
/// ``DeviceLinkFraming``, each given to ``DeviceLinkClientStateMachine``, whose actions it carries out: what is a
/// device's goes to its ``DeviceLinkPeer`` (the answers to one read go out in one write), heartbeats on a timer at the
/// gateway's interval, a device's hello again after its session on a shared link ended. ``ended`` completes when the
/// channel closes: succeeded when the gateway closed it, failed with the reason when the link broke.
///
/// A handler rather than an async channel with reading and heartbeat tasks: a host of 10,000 devices keeps one
/// task per device this way, and about a third less memory (Benchmarks/scale.sh).
final class DeviceLinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let ended: EventLoopFuture<Void>
    private let endedPromise: EventLoopPromise<Void>
    private var machine: DeviceLinkClientStateMachine
    private let peer: any DeviceLinkPeer
    private var reader = DeviceLinkFraming.Reader()
    private var heartbeat: Scheduled<Void>?
    private var failure: (any Error)?

    init(machine: DeviceLinkClientStateMachine, peer: any DeviceLinkPeer, eventLoop: any EventLoop) {
        self.machine = machine
        self.peer = peer
        self.endedPromise = eventLoop.makePromise()
        self.ended = endedPromise.futureResult
    }

    func channelActive(context: ChannelHandlerContext) {
        // TLS holds this until its handshake is done.
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: machine.opening)), promise: nil)
        scheduleHeartbeat(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reader.append(unwrapInboundIn(data).readableBytesView)
        var replies: [UInt8] = []
        do {
            while let (deviceID, message) = try reader.nextAddressed() {
                try perform(machine.received(message, deviceID: deviceID), replies: &replies, context: context)
            }
        } catch {
            failure = error
            context.close(promise: nil)
        }
        if !replies.isEmpty {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: replies)), promise: nil)
        }
    }

    /// Carries out `action`, gathering what it writes in `replies`; throws to end the link.
    private func perform(_ action: DeviceLinkClientStateMachine.Action, replies: inout [UInt8], context: ChannelHandlerContext) throws {
        switch action {
        case .deliver(let message, let device):
            replies += try deliver(message, to: device, context: context)
        case .welcomed(let welcome, let device, _):
            scheduleHeartbeat(context: context)  // at the gateway's interval from now on
            if let welcome { replies += try deliver(welcome, to: device, context: context) }
        case .carry(let carry):
            peer.carry(carry)
        case .send(let message, let device):
            replies += DeviceLinkFraming.frame(message, deviceID: device)
        case .alive:
            break  // the gateway is there: the machine counts no heartbeat unanswered
        case .endSession(let device, let reason, let telling, let pause):
            peer.sessionEnded(device, reason: reason)
            if let telling { replies += DeviceLinkFraming.frame(DeviceLinkMessage.Written.error(telling), deviceID: device) }
            helloAgain(device, after: pause, context: context)
        case .end(let sentence):
            throw DeviceError(sentence)
        case .misplaced(let sentence):
            peer.misplaced(sentence)
        }
    }

    /// Device `device`'s answer to `message`. On a shared link, a device that ends its own session (a restart, a drop
    /// before acknowledging) ends it alone; on its own link, it ends the link.
    private func deliver(_ message: DeviceLinkMessage.ToDevice, to device: String?, context: ChannelHandlerContext) throws -> [UInt8] {
        guard let device else { return try peer.deliver(message, to: nil) }
        do {
            return try peer.deliver(message, to: device)
        } catch {
            var replies: [UInt8] = []
            try perform(machine.sessionEndedByDevice(device, restarted: error is DeviceRestarted, why: "\(error)"), replies: &replies,
                        context: context)
            return replies
        }
    }

    /// Says `device`'s hello on the link again after `pause`, if the link is still up then.
    private func helloAgain(_ device: String, after pause: TimeAmount, context: ChannelHandlerContext) {
        let frame = machine.hello(device)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: pause) {
            guard channel.isActive else { return }
            channel.writeAndFlush(ByteBuffer(bytes: frame), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if failure == nil { failure = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        heartbeat?.cancel()
        heartbeat = nil
        if let failure { endedPromise.fail(failure) } else { endedPromise.succeed() }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A channel that never became active (TLS set-up failed) still ends.
        endedPromise.fail(failure ?? DeviceError("the device link closed before it opened"))
    }

    /// The next heartbeat, one interval from now, so the gateway can tell a silent device from a dead one (and the device
    /// a silent gateway from a live one).
    private func scheduleHeartbeat(context: ChannelHandlerContext) {
        heartbeat?.cancel()
        heartbeat = context.eventLoop.assumeIsolated().scheduleTask(in: machine.heartbeatEvery) {
            var frame: [UInt8] = []
            do {
                try self.perform(self.machine.heartbeatDue(), replies: &frame, context: context)
            } catch {
                self.failure = error
                context.close(promise: nil)
                return
            }
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: frame)), promise: nil)
            self.scheduleHeartbeat(context: context)
        }
    }
}
