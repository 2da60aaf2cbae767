import APNSimDeviceLink
import APNSimRules
import NIOCore

/// The device's end of one device link (docs/device-link.md), on its channel's event loop: it says hello (or, on a
/// link its process's devices share, `link` and each device's hello), answers each message through `respond` (the
/// answers to one read go out in one write), and sends a heartbeat every interval. ``ended`` completes when the channel closes: succeeded when the gateway closed it, failed with the
/// reason when the link broke.
///
/// A handler rather than an async channel with reading and heartbeat tasks: a host of 10,000 devices keeps one
/// task per device this way, and about a third less memory (Benchmarks/scale.sh).
final class DeviceLinkClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Given one message from the gateway and the device it names (on a shared link), the answers as frames; throwing
    /// ends the link with that error.
    typealias Respond = @Sendable (_ deviceID: String?, DeviceLinkMessage.ToDevice) throws -> [UInt8]

    let ended: EventLoopFuture<Void>
    private let endedPromise: EventLoopPromise<Void>
    private let opening: [UInt8]
    private let heartbeatInterval: TimeAmount
    private let respond: Respond
    private var reader = DeviceLinkFraming.Reader()
    private var heartbeat: Scheduled<Void>?
    private var heartbeatSequence = 0
    private var failure: (any Error)?

    /// - Parameter opening: the first frames: one device's hello, or a shared link's `link` and its devices' hellos.
    init(opening: [UInt8], heartbeatInterval: Duration, eventLoop: any EventLoop, respond: @escaping Respond) {
        self.opening = opening
        self.heartbeatInterval = TimeAmount(heartbeatInterval)
        self.respond = respond
        self.endedPromise = eventLoop.makePromise()
        self.ended = endedPromise.futureResult
    }

    func channelActive(context: ChannelHandlerContext) {
        // TLS holds this until its handshake is done.
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: opening)), promise: nil)
        scheduleHeartbeat(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        reader.append(unwrapInboundIn(data).readableBytesView)
        var replies: [UInt8] = []
        do {
            while let (deviceID, message) = try reader.nextAddressed() {
                if deviceID == nil, case .error(let error) = message {
                    throw DeviceError("the gateway ended the link: \(error.reason): \(error.explanation)")
                }
                replies += try respond(deviceID, message)
            }
        } catch {
            failure = error
            context.close(promise: nil)
        }
        if !replies.isEmpty {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: replies)), promise: nil)
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

    /// Heartbeats on a timer, so the gateway can tell a silent device from a dead one.
    private func scheduleHeartbeat(context: ChannelHandlerContext) {
        heartbeat = context.eventLoop.assumeIsolated().scheduleTask(in: heartbeatInterval) {
            self.heartbeatSequence += 1
            let beat = DeviceLinkMessage.Written.heartbeat(.init(sequence: self.heartbeatSequence))
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: DeviceLinkFraming.frame(beat))), promise: nil)
            self.scheduleHeartbeat(context: context)
        }
    }
}
