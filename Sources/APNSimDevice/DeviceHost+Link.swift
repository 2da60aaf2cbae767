import APNSimDeviceLink
import APNSimRules
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
        await DeviceLinkConnection.keep(maximumBackoff: configuration.maximumBackoff, logger: logger, devices: configuration.device.id) {
            try await runLink(sslContext: sslContext)
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
        let machine = DeviceLinkClientStateMachine(devices: .own(.init(device: configuration.device, host: configuration.group?.id)),
                                                   heartbeatEvery: TimeAmount(configuration.heartbeatInterval),
                                                   maximumBackoff: TimeAmount(configuration.maximumBackoff))
        try await DeviceLinkConnection.run(configuration, home: .device(configuration.device.id), sslContext: sslContext, machine: machine, logger: logger,
                                           devices: configuration.device.id, peer: { OwnLinkPeer(host: self, route: DeviceRoute(outbox: $0)) },
                                           ended: { unlink(DeviceRoute(outbox: $0)) })
    }

    /// The device's answer to one message from the gateway on `route`; throwing ends the device's session (its own link,
    /// or its part of a shared one).
    func receive(_ message: DeviceLinkMessage.ToDevice, on route: DeviceRoute) throws -> Outgoing {
        let now = configuration.clock.now()
        switch message {
        case .welcome:
            // The link is up from here, in the same lock that empties the outbox: an answer finished from now on (a
            // cached extension build registering its app, a receipt) goes on the link, one finished before waits in
            // the outbox and goes out with these. Set when `connect` returned instead, a build finished between the
            // welcome and that moment went to the outbox and stayed there: its app never registered (one world in
            // 40 with four at once).
            return try apply(linking: route) { $0.linked(now: now) }
        default:
            let answers = try apply { state throws(DeviceError) in try state.handle(message, now: now) }
            if case .restart = message { throw DeviceRestarted() }
            return answers
        }
    }
}

/// The device of a link of its own, answering on it.
private struct OwnLinkPeer: DeviceLinkPeer {
    let host: DeviceHost
    let route: DeviceRoute

    func deliver(_ message: DeviceLinkMessage.ToDevice, to device: String?) throws -> [UInt8] {
        route.frames(try host.receive(message, on: route))
    }

    func carry(_ carry: DeviceLinkMessage.Carry) {
        // Applied on the process's event loops in turn rather than on the carrier's: the gateway picks carriers
        // without knowing which of this process's loops their links are on, and often they are all on one.
        let (host, route) = (host, route)
        MultiThreadedEventLoopGroup.singleton.next().execute {
            host.send(host.carried(carry), on: route)
        }
    }

    func sessionEnded(_ device: String, reason: String) {}  // a link of its own ends whole

    func misplaced(_ sentence: String) {
        host.logger.warning("\(sentence)")
    }
}
