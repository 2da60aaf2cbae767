import APNSimRules
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One device link's connection, a device's own or one its process's devices share (docs/device-link.md): TLS to a
/// gateway's device port (its home replica's, or the next one's that answers), the opening frames, then each message
/// answered; linked again whenever it ends, with a pause that starts at 0.1 s and doubles up to a limit while attempts
/// keep failing, until the task is cancelled.
enum DeviceLinkConnection {
    /// Runs `link` until the task is cancelled, again after each end; `devices` names what the link serves in log lines.
    static func keep(maximumBackoff: Duration, logger: Logger, devices: String, _ link: () async throws -> Void) async {
        var backoff: Duration = .milliseconds(100)
        var failing = false
        while !Task.isCancelled {
            do {
                try await link()
                backoff = .milliseconds(100)
                failing = false
            } catch {
                if Task.isCancelled { return }
                // The first failure of a run is a warning, so a device that cannot link says why at the default log
                // level; the retries after it are info, one line per link per outage.
                logger.log(level: failing ? .info : .warning, "device link failed; retrying",
                           metadata: ["device": "\(devices)", "error": "\(error)", "in": "\(backoff)"])
                failing = true
            }
            if Task.isCancelled { return }
            // Back-off between reconnection attempts, not a wait for a result.
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, maximumBackoff)
        }
    }

    /// One link, until the gateway closes it (returns), it breaks (throws), or the task is cancelled. The gateways of
    /// `configuration` are resolved, and tried from the home replica of `home` (a device's ID, a shared link's number)
    /// on, each in turn while one does not answer its connection (``GatewayEndpoint``). `machine` decides for the link
    /// from its opening on; `peer` makes the devices that answer on the link whose outbox it is given; `ended` is told
    /// that outbox once the link is over.
    static func run(_ configuration: DeviceHostConfiguration, home: GatewayEndpoint.Home, sslContext: NIOSSLContext, machine: DeviceLinkClientStateMachine,
                    logger: Logger, devices: String, peer: @escaping @Sendable (DeviceLinkOutbox) -> any DeviceLinkPeer,
                    ended: (DeviceLinkOutbox) -> Void) async throws {
        let (endpoints, unresolved) = await GatewayEndpoint.resolve(configuration.gateways)
        guard !endpoints.isEmpty else {
            throw DeviceError("no address found for the gateway \(unresolved.joined(separator: ", "))")
        }
        var refused: [String] = unresolved.map { "\($0): no address found" }
        for endpoint in GatewayEndpoint.inOrder(endpoints, home: home) {
            // NIO's connect does not end when the task is cancelled: a device stopping while its gateway does not answer
            // (a black-holed address, a full accept queue) waited out the connect timeout. Cancelling closes the
            // attempt's channel instead, connecting or connected, which ends the connect or the link at once.
            let attempt = ConnectAttempt()
            let linked = try await withTaskCancellationHandler {
                let link: (outbox: DeviceLinkOutbox, over: EventLoopFuture<Void>)
                do {
                    link = try await connect(endpoint, attempt: attempt, configuration: configuration, sslContext: sslContext,
                                             machine: machine, logger: logger, devices: devices, peer: peer)
                } catch {
                    if Task.isCancelled { throw error }
                    refused.append("\(endpoint): \(error)")  // the next replica, at once
                    return false
                }
                defer { ended(link.outbox) }
                try await link.over.get()
                return true
            } onCancel: {
                attempt.cancel()
            }
            if linked { return }
        }
        throw DeviceError("no gateway answered: " + refused.joined(separator: "; "))
    }

    /// Connects to `endpoint` and starts the link on the connection; returns once connected, with the link's outbox
    /// and what completes when it ends.
    private static func connect(_ endpoint: GatewayEndpoint, attempt: ConnectAttempt, configuration: DeviceHostConfiguration,
                                sslContext: NIOSSLContext, machine: DeviceLinkClientStateMachine, logger: Logger, devices: String,
                                peer: @escaping @Sendable (DeviceLinkOutbox) -> any DeviceLinkPeer) async throws
        -> (outbox: DeviceLinkOutbox, over: EventLoopFuture<Void>)
    {
        logger.debug("device link connecting", metadata: ["device": "\(devices)", "gateway": "\(endpoint)"])
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.init(configuration.connectTimeout))
            // The TCP level's option, not the socket level's (there, number 1 is SO_DEBUG; Listener.swift).
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(to: endpoint.address) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try attempt.started(channel)
                    let outbox = DeviceLinkOutbox(channel: channel)
                    let link = DeviceLinkClientHandler(machine: machine, peer: peer(outbox), eventLoop: channel.eventLoop)
                    // The certificate is checked against the name the device was given (the development certificates
                    // name localhost and 127.0.0.1; an address is checked against the latter).
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext,
                                                                                           serverHostname: endpoint.serverName))
                    try channel.pipeline.syncOperations.addHandler(link)
                    return (outbox, link.ended)
                }
            }
    }
}

/// The channel of a connection attempt, so cancelling the task can close it, whether it is connecting or connected.
private final class ConnectAttempt: Sendable {
    private let state = Mutex<(channel: (any Channel)?, cancelled: Bool)>((nil, false))

    /// Called in the channel initializer; throws if the task was cancelled before the channel existed.
    func started(_ channel: any Channel) throws {
        let cancelled = state.withLock { state in
            state.channel = channel
            return state.cancelled
        }
        if cancelled { throw CancellationError() }
    }

    func cancel() {
        let channel = state.withLock { state in
            state.cancelled = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}
