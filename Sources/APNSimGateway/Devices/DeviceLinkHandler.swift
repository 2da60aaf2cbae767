import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation
import Logging
import NIOCore
import NIOExtras

/// The gateway's end of one device link (docs/device-link.md): bytes in, messages through ``DeviceLinkFraming``, each
/// given to ``DeviceLinkStateMachine``, which decides who is on the link (hello, link, join, version, session ends);
/// this handler carries out what it returns: welcomes, the directory's attach and detach, what a device says handed to
/// the gateway's services, errors and the close.
final class DeviceLinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Ends one device's session on a shared link, sent through the pipeline from any thread (``DeviceSession/close()``).
    struct EndSession: Sendable {
        var deviceID: String
    }

    private let services: DeviceServices
    private var reader = DeviceLinkFraming.Reader()
    private var machine: DeviceLinkStateMachine<DeviceSession>
    /// The link's writing end, made at its first message and shared by its sessions.
    private var writer: DeviceLinkWriter?

    init(services: DeviceServices) {
        self.services = services
        self.machine = DeviceLinkStateMachine(heartbeatInterval: services.heartbeatInterval)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        reader.append(bytes.readableBytesView)
        do {
            while let (deviceID, inbound) = try reader.nextAddressedInbound() {
                let writer = linkWriter(context)
                let action = machine.received(inbound, deviceID: deviceID) { opening in
                    DeviceSession(descriptor: opening.hello.device, host: opening.host, link: writer, address: opening.address)
                }
                perform(action, context: context)
            }
        } catch {
            fail(.init(reason: "BadFrame", explanation: error.description), context: context)
        }
    }

    private func linkWriter(_ context: ChannelHandlerContext) -> DeviceLinkWriter {
        if let writer { return writer }
        let made = DeviceLinkWriter(channel: context.channel, limit: services.bufferLimit)
        writer = made
        return made
    }

    private func perform(_ action: DeviceLinkStateMachine<DeviceSession>.Action, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .start(let session, let replaced):
            if let replaced { ended(replaced) }
            session.send(.welcome(.init(heartbeatInterval: services.heartbeatInterval)))
            services.directory.attach(session, now: services.clock.now())
        case .welcomeLink:
            linkWriter(context).write(DeviceLinkFraming.frame(.welcome(.init(heartbeatInterval: services.heartbeatInterval))))
        case .forward(let inbound, let session):
            forward(inbound, from: session)
        case .takeReceipts(let receipts, let host):
            if let stranger = services.directory.receipts(receipts, host: host, at: services.clock.now()) {
                fail(.init(reason: "NotCarried", explanation: "a receipts message names device \(stranger), which does not run in the "
                           + "process of this link (\(host ?? "a device that named no process"))"), context: context)
            }
        case .answerHeartbeat(let beat, let session?):
            session.send(.heartbeatAck(beat))
        case .answerHeartbeat(let beat, nil):
            linkWriter(context).write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.heartbeatAck(beat)))
        case .alive:
            break  // the read timer has seen the read
        case .endSession(let session, let error, let reason):
            if let error, let address = session.address {
                session.link.write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(error), deviceID: address))
            } else {
                services.logger.info("device closed its link", metadata: ["device": "\(session.descriptor.id)", "reason": "\(reason)"])
            }
            ended(session)
        case .refuse(let deviceID, let error):
            linkWriter(context).write(DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(error), deviceID: deviceID))
        case .fail(let error):
            fail(error, context: context)
        case .peerClosed(let reason, let session?):
            services.logger.info("device closed its link", metadata: ["device": "\(session.descriptor.id)", "reason": "\(reason)"])
            context.close(promise: nil)
        case .peerClosed(let reason, nil):
            services.logger.info("device process closed its link", metadata: ["reason": "\(reason)"])
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for session in machine.closed() { ended(session) }
        context.fireChannelInactive()
    }

    private func ended(_ session: DeviceSession) {
        services.directory.detach(session)
        services.requests.sessionEnded(session)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        writer?.writabilityChanged()
        context.fireChannelWritabilityChanged()
    }

    /// The link's device, or devices, stopped reading (``DeviceLinkWriter/Overflowed``): the link ends without a last
    /// message (there is no room for one); its devices are offline and get what was not acknowledged on their next link.
    private func overflowed(context: ChannelHandlerContext) {
        let devices: String = switch machine.phase {
        case .opening, .closed: "a device that has not said hello"
        case .own(let session, _): "device \(session.descriptor.id)"
        case .shared(let host, let sessions): "the \(sessions.count) devices of \(host)"
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
            return perform(machine.readTimedOut(), context: context)
        }
        if event is ChannelShouldQuiesceEvent {
            return perform(machine.quiesce(), context: context)
        }
        if event is DeviceLinkWriter.Overflowed {
            return overflowed(context: context)
        }
        if let end = event as? EndSession {
            return perform(machine.endSession(end.deviceID), context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// What a device says in its session, on its own link or a shared one, for the gateway's services.
    private func forward(_ inbound: DeviceLinkInbound, from session: DeviceSession) {
        switch inbound {
        case .ack(let ack):
            services.directory.acknowledged(ack, at: services.clock.now())
        case .receipt(let receipt):
            services.directory.receipt(receipt, device: session.descriptor.id, at: services.clock.now())
        case .register(let registration):
            register(registration, session: session)
        case .unregister(let unregistration):
            services.directory.unregister(unregistration.token, device: session.descriptor.id,
                                          at: services.uninstallDelay.tokenEnd(removedAt: services.clock.now()))
        case .installRefused(let refused):
            services.directory.refuse(refused, device: session.descriptor.id)
            services.requests.resolve(.install(device: session.descriptor.id, bundleID: refused.bundleID), with: .refused(refused))
        case .interacted(let answer):
            services.requests.resolve(.reply(id: answer.id), with: .interacted(answer))
        case .summarized(let summary):
            services.summarized(summary)
        case .activities(let report):
            services.directory.report(report, device: session.descriptor.id)
            services.requests.resolve(.activities(device: session.descriptor.id), with: .activities(report))
        case .attachmentCopy(let copy):
            // Written here, on the link's event loop, so the parts stay in order; a part is at most 32 KiB.
            do {
                for addition in services.additions { try addition.received(copy) }
            } catch {
                services.logger.warning("attachment copy dropped", metadata: ["device": "\(session.descriptor.id)", "why": "\(error)"])
            }
        case .hello, .link, .receipts, .heartbeat, .heartbeatAck, .error:
            preconditionFailure("DeviceLinkStateMachine forwards only what a device says in its session, not \(inbound.type)")
        }
    }

    private func register(_ registration: DeviceLinkMessage.Registration, session: DeviceSession) {
        let device = session.descriptor.id
        let token = services.tokens.token(device: device, bundleID: registration.bundleID,
                                          environment: registration.environment, installation: registration.installation)
        // A push-to-start token per attributes type, as stable as the app's own token: the same installation, the same
        // tokens; a reinstall, new ones.
        // So are the widget token and each control's.
        func issued(for purpose: String) -> DeviceToken {
            services.tokens.token(device: device, bundleID: registration.bundleID, environment: registration.environment,
                                  installation: registration.installation + "\u{1F}" + purpose)
        }
        let pushToStart = registration.pushToStartTypes.map { types in
            Dictionary(types.map { type in (type, issued(for: "push-to-start\u{1F}" + type)) }, uniquingKeysWith: { first, _ in first })
        }
        let controls = registration.controlKinds.map { kinds in
            Dictionary(kinds.map { kind in (kind, issued(for: "control\u{1F}" + kind)) }, uniquingKeysWith: { first, _ in first })
        }
        let registered = DeviceLinkMessage.Registered(bundleID: registration.bundleID, environment: registration.environment,
                                                      token: token, pushToStartTokens: pushToStart,
                                                      widgetToken: registration.widgetKinds == nil ? nil : issued(for: "widgets"),
                                                      widgetKinds: registration.widgetKinds,
                                                      controlTokens: controls)
        services.directory.register(registered, device: device, team: registration.team, badge: registration.badge)
        let requests = services.requests
        let tell: @Sendable () -> Void = {
            session.send(.registered(registered))
            requests.resolve(.install(device: device, bundleID: registration.bundleID), with: .installed(token))
        }
        guard let commits = services.registrationCommits else { return tell() }
        // On a store replicas share, the token is told once it is written: a push sent through another replica the
        // moment the app has its token finds it there (docs/cluster.md). Told even if the write failed: it is retried.
        commits.afterCommit { _ in tell() }
    }

    private func fail(_ error: DeviceLinkMessage.LinkError, context: ChannelHandlerContext) {
        let frame = DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.error(error))
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
    /// When the token of a removed app starts answering 410 Unregistered.
    var uninstallDelay: UninstallDelay
    /// Control requests waiting for a device's answer; a session's end answers those waiting on it.
    var requests: DeviceRequests
    /// Summaries a device delivered: each recorded, then handed to the request that asked for it, if one did.
    var summarized: @Sendable (SummaryDelivery) -> Void
    /// What the control port serves besides the API, which keeps the devices' attachment copies (the inbox).
    var additions: [any ControlPortAddition]
    /// Bytes written to a link and not read, past which it ends (``GatewayConfiguration/deviceLinkBufferLimit``).
    var bufferLimit: Int
    /// Set on a store replicas share: a registration is told to its device once it is committed.
    var registrationCommits: CommitPoint? = nil
    var logger: Logger
}
