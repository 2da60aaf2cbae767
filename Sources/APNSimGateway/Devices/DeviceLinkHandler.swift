import APNSimDeviceLink
import APNSimRules
import Foundation
import Logging
import NIOCore
import NIOExtras

/// The gateway's end of one device link (docs/device-link.md): hello, registrations, pushes out, acks and
/// receipts in. Bytes in, messages through ``DeviceLinkFraming``. The link is one device's (it opens with `hello`)
/// or shared by the devices of one process (it opens with `link`; each device then says `hello` on it, and every
/// message about a device names it).
final class DeviceLinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Ends one device's session on a shared link, sent through the pipeline from any thread (``DeviceSession/close()``).
    struct EndSession: Sendable {
        var deviceID: String
    }

    private enum Peer {
        /// Nothing said yet.
        case unknown
        /// One device's own link.
        case device(DeviceSession)
        /// A link the devices of process `host` share, with the session of each device that said hello on it.
        case shared(host: String, writer: DeviceLinkWriter, sessions: [String: DeviceSession])
    }

    private let services: DeviceServices
    private var reader = DeviceLinkFraming.Reader()
    private var peer = Peer.unknown

    init(services: DeviceServices) {
        self.services = services
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        reader.append(bytes.readableBytesView)
        do {
            while let (deviceID, inbound) = try reader.nextAddressedInbound() {
                handle(inbound, deviceID: deviceID, context: context)
            }
        } catch {
            fail(reason: "BadFrame", error.description, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch peer {
        case .unknown: break
        case .device(let session): ended(session)
        case .shared(_, _, let sessions): for session in sessions.values { ended(session) }
        }
        peer = .unknown
        context.fireChannelInactive()
    }

    private func ended(_ session: DeviceSession) {
        services.directory.detach(session)
        services.requests.sessionEnded(session)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        switch peer {
        case .unknown: break
        case .device(let session): session.link.writabilityChanged()
        case .shared(_, let writer, _): writer.writabilityChanged()
        }
        context.fireChannelWritabilityChanged()
    }

    /// The link's device, or devices, stopped reading (``DeviceLinkWriter/Overflowed``): the link ends without a last
    /// message (there is no room for one); its devices are offline and get what was not acknowledged on their next link.
    private func overflowed(context: ChannelHandlerContext) {
        let devices: String = switch peer {
        case .unknown: "a device that has not said hello"
        case .device(let session): "device \(session.descriptor.id)"
        case .shared(let host, _, let sessions): "the \(sessions.count) devices of \(host)"
        }
        services.logger.warning("""
            device link ended: \(devices) left more than \(services.bufferLimit) bytes unread (--device-link-buffer); what was \
            sent and not acknowledged goes again on the next link
            """)
        context.close(promise: nil)
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
        if event is DeviceLinkWriter.Overflowed {
            overflowed(context: context)
            return
        }
        if let end = event as? EndSession {
            endSession(end.deviceID, reason: "LinkDropped", "the device's session on this link ended (a deviceLink fault); say hello again")
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func handle(_ inbound: DeviceLinkInbound, deviceID: String?, context: ChannelHandlerContext) {
        switch peer {
        case .unknown:
            opening(inbound, context: context)
        case .device(let session):
            handle(inbound, from: session, context: context)
        case .shared(let host, let writer, let sessions):
            guard let deviceID else { return handleLink(inbound, host: host, writer: writer, context: context) }
            if case .hello(let hello) = inbound {
                return join(hello, deviceID: deviceID, host: host, writer: writer)
            }
            guard let session = sessions[deviceID] else {
                return writer.write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(.init(reason: "HelloFirst", explanation:
                    "device \(deviceID) has not said hello on this link; its first message is hello")), deviceID: deviceID))
            }
            handle(inbound, from: session, context: context)
        }
    }

    /// The link's first message: one device's `hello`, or a process's `link`.
    private func opening(_ inbound: DeviceLinkInbound, context: ChannelHandlerContext) {
        let version: Int
        switch inbound {
        case .hello(let hello): version = hello.version
        case .link(let link): version = link.version
        case .register, .unregister, .installRefused, .ack, .receipt, .receipts, .attachmentCopy, .interacted, .summarized,
             .heartbeat, .heartbeatAck, .error:
            return fail(reason: "HelloFirst", "the first message on a device link is hello, or link on a link devices share", context: context)
        }
        guard version == DeviceLinkMessage.protocolVersion else {
            return fail(reason: "UnsupportedVersion",
                        "this gateway speaks device-link version \(DeviceLinkMessage.protocolVersion); the device sent \(version)",
                        context: context)
        }
        let writer = DeviceLinkWriter(channel: context.channel, limit: services.bufferLimit)
        switch inbound {
        case .hello(let hello):
            let session = DeviceSession(descriptor: hello.device, host: hello.host, link: writer)
            peer = .device(session)
            session.send(.welcome(.init(heartbeatInterval: services.heartbeatInterval)))
            services.directory.attach(session, now: services.clock.now())
        case .link(let link):
            peer = .shared(host: link.host, writer: writer, sessions: [:])
            writer.write(DeviceLinkFraming.frame(.welcome(.init(heartbeatInterval: services.heartbeatInterval))))
        case .register, .unregister, .installRefused, .ack, .receipt, .receipts, .attachmentCopy, .interacted, .summarized,
             .heartbeat, .heartbeatAck, .error:
            break  // refused above
        }
    }

    /// A device says hello on a shared link: its session starts (replacing one it had on this link).
    private func join(_ hello: DeviceLinkMessage.Hello, deviceID: String, host: String, writer: DeviceLinkWriter) {
        guard hello.version == DeviceLinkMessage.protocolVersion, hello.device.id == deviceID else {
            let why = hello.device.id != deviceID
                ? "a hello names device \(hello.device.id) and deviceID \(deviceID); they must be the same"
                : "this gateway speaks device-link version \(DeviceLinkMessage.protocolVersion); the device sent \(hello.version)"
            return writer.write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(.init(reason: "BadHello", explanation: why)), deviceID: deviceID))
        }
        if let old = removeSession(deviceID) { ended(old) }
        // The hello's host is the link's: the process that opened the link hosts every device on it.
        let session = DeviceSession(descriptor: hello.device, host: host, link: writer, address: deviceID)
        changeSessions { $0[deviceID] = session }
        session.send(.welcome(.init(heartbeatInterval: services.heartbeatInterval)))
        services.directory.attach(session, now: services.clock.now())
    }

    /// Takes device `deviceID`'s session off this shared link.
    private func removeSession(_ deviceID: String) -> DeviceSession? {
        changeSessions { $0.removeValue(forKey: deviceID) } ?? nil
    }

    /// Changes the sessions of this shared link in place (`nil` when the link is not shared).
    private func changeSessions<T>(_ change: (inout [String: DeviceSession]) -> T) -> T? {
        guard case .shared(let host, let writer, var sessions) = peer else { return nil }
        peer = .unknown  // the dictionary is changed in place, not copied
        defer { peer = .shared(host: host, writer: writer, sessions: sessions) }
        return change(&sessions)
    }

    /// Ends one device's session on a shared link, telling the device why; the link stays up.
    private func endSession(_ deviceID: String, reason: String, _ explanation: String) {
        guard case .shared(_, let writer, _) = peer, let session = removeSession(deviceID) else { return }
        writer.write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(.init(reason: reason, explanation: explanation)), deviceID: deviceID))
        ended(session)
    }

    /// A message about a shared link itself.
    private func handleLink(_ inbound: DeviceLinkInbound, host: String, writer: DeviceLinkWriter, context: ChannelHandlerContext) {
        switch inbound {
        case .receipts(let receipts):
            takeReceipts(receipts, host: host, context: context)
        case .heartbeat(let beat):
            writer.write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.heartbeatAck(beat)))
        case .heartbeatAck:
            break
        case .error(let error):
            services.logger.info("device process closed its link", metadata: ["host": "\(host)", "reason": "\(error.reason)"])
            context.close(promise: nil)
        case .hello, .link, .register, .unregister, .installRefused, .ack, .receipt, .attachmentCopy, .interacted, .summarized:
            fail(reason: "NoDevice", "on a link devices share, a \(inbound.type) message names its device in deviceID", context: context)
        }
    }

    /// What a device says, on its own link or a shared one.
    private func handle(_ inbound: DeviceLinkInbound, from session: DeviceSession, context: ChannelHandlerContext) {
        switch inbound {
        case .ack(let ack):
            services.directory.acknowledged(ack, at: services.clock.now())
        case .receipt(let receipt):
            services.directory.receipt(receipt, device: session.descriptor.id, at: services.clock.now())
        case .receipts(let receipts):
            // Receipts of pushes carried for several devices of this link's process: each must be one of them.
            takeReceipts(receipts, host: session.host, context: context)
        case .register(let registration):
            register(registration, session: session)
        case .unregister(let unregistration):
            services.directory.unregister(unregistration.token, device: session.descriptor.id,
                                          at: services.clock.now() + services.uninstallDelay)
        case .installRefused(let refused):
            services.directory.refuse(refused, device: session.descriptor.id)
            services.requests.resolve(.install(device: session.descriptor.id, bundleID: refused.bundleID), with: .refused(refused))
        case .interacted(let answer):
            services.requests.resolve(.reply(id: answer.id), with: .interacted(answer))
        case .summarized(let summary):
            services.summarized(summary)
        case .attachmentCopy(let copy):
            // Written here, on the link's event loop, so the parts stay in order; a part is at most 32 KiB.
            do {
                for addition in services.additions { try addition.received(copy) }
            } catch {
                services.logger.warning("attachment copy dropped", metadata: ["device": "\(session.descriptor.id)", "why": "\(error)"])
            }
        case .heartbeat(let beat):
            session.send(.heartbeatAck(beat))
        case .heartbeatAck:
            break
        case .error(let error):
            services.logger.info("device closed its link", metadata: ["device": "\(session.descriptor.id)", "reason": "\(error.reason)"])
            if let address = session.address {
                if let ended = removeSession(address) { self.ended(ended) }  // its session ends; the shared link stays
            } else {
                context.close(promise: nil)
            }
        case .hello, .link:
            fail(reason: "UnexpectedMessage", "a device says \(inbound.type) once, as its link's first message", context: context)
        }
    }

    /// Receipts of pushes carried for several devices of process `host`: each must be one of them.
    private func takeReceipts(_ receipts: [CarriedReceivedReceipt], host: String?, context: ChannelHandlerContext) {
        if let stranger = services.directory.receipts(receipts, host: host, at: services.clock.now()) {
            fail(reason: "NotCarried", "a receipts message names device \(stranger), which does not run in the process of this link "
                 + "(\(host ?? "a device that named no process"))", context: context)
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
        services.requests.resolve(.install(device: device, bundleID: registration.bundleID), with: .installed(token))
    }

    private func fail(reason: String, _ explanation: String, context: ChannelHandlerContext) {
        let frame = DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(.init(reason: reason, explanation: explanation)))
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
    /// Control requests waiting for a device's answer; a session's end answers those waiting on it.
    var requests: DeviceRequests
    /// Summaries a device delivered: each recorded, then handed to the request that asked for it, if one did.
    var summarized: @Sendable (SummaryDelivery) -> Void
    /// What the control port serves besides the API, which keeps the devices' attachment copies (the inbox).
    var additions: [any ControlPortAddition]
    /// Bytes written to a link and not read, past which it ends (``GatewayConfiguration/deviceLinkBufferLimit``).
    var bufferLimit: Int
    var logger: Logger
}
