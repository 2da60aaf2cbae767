import APNSimCore
import Foundation
import Logging
import NIOCore
import NIOExtras

/// The gateway's end of one device link (docs/device-link.md): hello, registrations, pushes out, acks and
/// receipts in. Bytes in, messages through ``DeviceLinkFraming``.
final class DeviceLinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let services: DeviceServices
    private var reader = DeviceLinkFraming.Reader()
    private var session: DeviceSession?

    init(services: DeviceServices) {
        self.services = services
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        reader.append(bytes.readableBytesView)
        do {
            while let inbound = try reader.nextInbound() {
                handle(inbound, context: context)
            }
        } catch {
            fail(reason: "BadFrame", error.description, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let session {
            services.directory.detach(session)
            services.installs.linkClosed(session)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            fail(reason: "HeartbeatTimeout",
                 "nothing arrived for three heartbeat intervals (\(services.heartbeatInterval * 3) s); reconnect", context: context)
            return
        }
        if event is ChannelShouldQuiesceEvent {
            fail(reason: "Shutdown", "the gateway is stopping; reconnect later", context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func handle(_ inbound: DeviceLinkInbound, context: ChannelHandlerContext) {
        guard let session else {
            guard case .message(.hello(let hello)) = inbound else {
                return fail(reason: "HelloFirst", "the first message on a device link is hello", context: context)
            }
            guard hello.version == DeviceLinkMessage.protocolVersion else {
                return fail(reason: "UnsupportedVersion",
                            "this gateway speaks device-link version \(DeviceLinkMessage.protocolVersion); the device sent \(hello.version)",
                            context: context)
            }
            let session = DeviceSession(descriptor: hello.device, host: hello.host, channel: context.channel)
            self.session = session
            session.send(.welcome(.init(heartbeatInterval: services.heartbeatInterval)))
            services.directory.attach(session, now: services.clock.now())
            return
        }
        switch inbound {
        case .ack(let ack):  // acks and receipts are read by hand (DeviceLinkInbound), never as .message
            services.directory.acknowledged(ack, at: services.clock.now())
        case .receipt(let receipt):
            services.directory.receipt(receipt, device: session.descriptor.id, at: services.clock.now())
        case .receipts(let receipts):
            // Receipts of pushes carried for several devices of this link's process: each must be one of them.
            if let stranger = services.directory.receipts(receipts, carrier: session, at: services.clock.now()) {
                fail(reason: "NotCarried", "a receipts message names device \(stranger), which does not run in the process of device "
                     + "\(session.descriptor.id)", context: context)
            }
        case .message(.register(let registration)):
            register(registration, session: session)
        case .message(.unregister(let unregistration)):
            services.directory.unregister(unregistration.token, device: session.descriptor.id,
                                          at: services.clock.now() + services.uninstallDelay)
        case .message(.installRefused(let refused)):
            services.directory.refuse(refused, device: session.descriptor.id)
            services.installs.resolve(device: session.descriptor.id, bundleID: refused.bundleID, .refused(refused))
        case .message(.attachmentCopy(let copy)):
            // Written here, on the link's event loop, so the parts stay in order; a part is at most 32 KiB.
            do {
                for addition in services.additions { try addition.received(copy) }
            } catch {
                services.logger.warning("attachment copy dropped", metadata: ["device": "\(session.descriptor.id)", "why": "\(error)"])
            }
        case .message(.heartbeat(let beat)):
            session.send(.heartbeatAck(beat))
        case .message(.heartbeatAck):
            break
        case .message(.error(let error)):
            services.logger.info("device closed its link", metadata: ["device": "\(session.descriptor.id)", "reason": "\(error.reason)"])
            context.close(promise: nil)
        case .message(let message):  // hello, welcome, registered, push, install, uninstall, foreground, restart
            fail(reason: "UnexpectedMessage", "a device does not send \(message.type) after hello", context: context)
        }
    }

    private func register(_ registration: DeviceLinkMessage.Registration, session: DeviceSession) {
        let device = session.descriptor.id
        let token = services.tokens.token(device: device, bundleID: registration.bundleID,
                                          environment: registration.environment, installation: registration.installation)
        // A push-to-start token per attributes type, as stable as the app's own token: the same installation, the same
        // tokens; a reinstall, new ones.
        let pushToStart = registration.pushToStartTypes.map { types in
            Dictionary(types.map { type in
                (type, services.tokens.token(device: device, bundleID: registration.bundleID, environment: registration.environment,
                                             installation: registration.installation + "\u{1F}push-to-start\u{1F}" + type))
            }, uniquingKeysWith: { first, _ in first })
        }
        let registered = DeviceLinkMessage.Registered(bundleID: registration.bundleID, environment: registration.environment,
                                                      token: token, pushToStartTokens: pushToStart)
        services.directory.register(registered, device: device, team: registration.team, badge: registration.badge,
                                    activities: registration.activities ?? [])
        session.send(.registered(registered))
        services.installs.resolve(device: device, bundleID: registration.bundleID, .installed(token))
    }

    private func fail(reason: String, _ explanation: String, context: ChannelHandlerContext) {
        let frame = DeviceLinkFraming.frame(.error(.init(reason: reason, explanation: explanation)))
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: frame))).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}

/// What every device link shares.
struct DeviceServices: Sendable {
    var directory: DeviceDirectory
    var tokens: TokenIssuer
    var clock: WallClock
    var heartbeatInterval: Double
    /// How long after an app is removed its token starts answering 410 Unregistered.
    var uninstallDelay: TimeInterval
    var installs: InstallWaiters
    /// What the control port serves besides the API, which keeps the devices' attachment copies (the inbox).
    var additions: [any ControlPortAddition]
    var logger: Logger
}
