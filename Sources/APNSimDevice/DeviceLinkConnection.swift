import APNSimRules
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One device link's connection, a device's own or one its process's devices share (docs/device-link.md): TLS to the
/// gateway's device port, the opening frames, then each message answered; linked again whenever it ends, with a pause
/// that starts at 0.1 s and doubles up to a limit while attempts keep failing, until the task is cancelled.
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

    /// One link, until the gateway closes it (returns), it breaks (throws), or the task is cancelled. `machine` decides
    /// for the link from its opening on; `peer` makes the devices that answer on the link whose outbox it is given;
    /// `ended` is told that outbox once the link is over.
    static func run(_ configuration: DeviceHostConfiguration, sslContext: NIOSSLContext, machine: DeviceLinkClientStateMachine, logger: Logger,
                    devices: String, peer: @escaping @Sendable (DeviceLinkOutbox) -> any DeviceLinkPeer,
                    ended: (DeviceLinkOutbox) -> Void) async throws {
        let host = configuration.gatewayHost
        // The gateway certificate names localhost and 127.0.0.1; an IP address is checked against the latter.
        let serverName = host.contains(where: \.isLetter) ? host : nil
        // NIO's connect does not end when the task is cancelled: a device stopping while its gateway does not answer
        // (a black-holed address, a full accept queue) waited out the connect timeout. Cancelling closes the
        // attempt's channel instead, connecting or connected, which ends the connect or the link at once.
        let attempt = ConnectAttempt()
        logger.debug("device link connecting", metadata: ["device": "\(devices)", "gateway": "\(host):\(configuration.devicePort)"])
        try await withTaskCancellationHandler {
            let (outbox, over) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.init(configuration.connectTimeout))
                // The TCP level's option, not the socket level's (there, number 1 is SO_DEBUG; Listener.swift).
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: configuration.devicePort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try attempt.started(channel)
                        let outbox = DeviceLinkOutbox(channel: channel)
                        let link = DeviceLinkClientHandler(machine: machine, peer: peer(outbox), eventLoop: channel.eventLoop)
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(link)
                        return (outbox, link.ended)
                    }
                }
            defer { ended(outbox) }
            try await over.get()
        } onCancel: {
            attempt.cancel()
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
