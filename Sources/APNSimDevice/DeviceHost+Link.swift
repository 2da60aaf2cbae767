import APNSimCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

extension DeviceHost {
    /// Keeps the device link up until the task is cancelled; the device's jobs run as child tasks meanwhile, and its
    /// extension processes end with it.
    public func run() async throws {
        let sslContext = try sharedTLSContext ?? Self.makeTLSContext(configuration.tls)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.jobs.run() }
            await keepLinked(sslContext: sslContext)
            group.cancelAll()
        }
        await shutDownExtensions()
    }

    /// Links, and links again with back-off whenever the link ends, until the task is cancelled.
    private func keepLinked(sslContext: NIOSSLContext) async {
        var backoff: Duration = .milliseconds(100)
        var failing = false
        while !Task.isCancelled {
            do {
                try await runLink(sslContext: sslContext)
                backoff = .milliseconds(100)
                failing = false
            } catch {
                if Task.isCancelled { return }
                // The first failure of a run is a warning, so a device that cannot link says why at the default log
                // level; the retries after it are info, one line per device per outage.
                logger.log(level: failing ? .info : .warning, "device link failed; retrying",
                           metadata: ["device": "\(configuration.device.id)", "error": "\(error)", "in": "\(backoff)"])
                failing = true
            }
            if Task.isCancelled { return }
            // Back-off between reconnection attempts (docs/device-link.md), not a wait for a result.
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, configuration.maximumBackoff)
        }
    }

    /// The device link's TLS context: trust the gateway's CA, present the device identity.
    public static func makeTLSContext(_ files: DeviceHostConfiguration.TLSFiles) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.trustRoots = .file(files.ca)
        // The device link is apnsim's own protocol, so it need not offer BoringSSL's default hybrid post-quantum
        // key share: X25519 alone keeps each handshake's key material near 100 bytes instead of about 10 KB, which
        // is what 10,000 devices connecting at once add up to (Benchmarks/scale.sh).
        tls.curves = [.x25519]
        do {
            tls.certificateChain = try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem))
        } catch {
            throw DeviceError("cannot load the device identity (\(files.certificate), \(files.privateKey)): \(error); run Certs/generate.sh")
        }
        return try NIOSSLContext(configuration: tls)
    }

    /// One device link, until the gateway closes it (returns), it breaks (throws), or the task is cancelled.
    private func runLink(sslContext: NIOSSLContext) async throws {
        let host = configuration.gatewayHost
        // The gateway certificate names localhost and 127.0.0.1; an IP address is checked against the latter.
        let serverName = host.contains(where: \.isLetter) ? host : nil
        let hello = DeviceLinkMessage.hello(.init(device: configuration.device, host: configuration.group?.id))
        let heartbeatInterval = configuration.heartbeatInterval
        // NIO's connect does not end when the task is cancelled: a device stopping while its gateway does not answer
        // (a black-holed address, a full accept queue) waited out the connect timeout. Cancelling closes the
        // attempt's channel instead, connecting or connected, which ends the connect or the link at once.
        let attempt = ConnectAttempt()
        logger.debug("device link connecting", metadata: ["device": "\(configuration.device.id)", "gateway": "\(host):\(configuration.devicePort)"])
        try await withTaskCancellationHandler {
            let (channel, ended) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.init(configuration.connectTimeout))
                // The TCP level's option, not the socket level's (there, number 1 is SO_DEBUG; Listener.swift).
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: configuration.devicePort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try attempt.started(channel)
                        let link = DeviceLinkClientHandler(hello: hello, heartbeatInterval: heartbeatInterval,
                                                           eventLoop: channel.eventLoop) { [self] in try handle($0, on: channel) }
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(link)
                        return (channel, link.ended)
                    }
                }
            defer {
                held.withLock { held in
                    guard held.link === channel else { return }
                    held.link = nil
                    held.state.unlinked()
                }
            }
            try await ended.get()
        } onCancel: {
            attempt.cancel()
        }
    }

    /// The device's answer to one message from the gateway on `link`; throwing ends the link.
    private func handle(_ message: DeviceLinkMessage, on link: any Channel) throws -> [DeviceLinkMessage] {
        let now = configuration.clock.now()
        switch message {
        case .welcome:
            // The link is up from here, in the same lock that empties the outbox: an answer finished from now on (a
            // cached extension build registering its app, a receipt) goes on the link, one finished before waits in
            // the outbox and goes out with these. Set when `connect` returned instead, a build finished between the
            // welcome and that moment went to the outbox and stayed there: its app never registered (one world in
            // 40 with four at once).
            return try apply(linking: link) { $0.linked(now: now) }
        case .carry(let carry):
            // Applied on the process's event loops in turn rather than on the carrier's: the gateway picks carriers
            // without knowing which of this process's loops their links are on, and often they are all on one.
            MultiThreadedEventLoopGroup.singleton.next().execute {
                self.send(self.carried(carry), on: link)
            }
            return []
        default:
            let answers = try apply { state throws(DeviceError) in try state.handle(message, now: now) }
            if case .restart = message { throw DeviceRestarted() }
            return answers
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
