import APNSimRules
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL
import SwiftASN1
import X509

/// The TCP listener of one environment's provider API (or its channel management API): TLS with an optional client
/// certificate, then HTTP/2.
struct ProviderEndpoint {
    let environment: APNsEnvironment
    var role: ProviderConnection.Role = .provider
    let services: GatewayServices
    let sslContext: NIOSSLContext
    let certificateCheck: ProviderCertificateCheck

    /// Binds and starts accepting connections; returns the listening channel.
    /// How long a provider connection may send nothing before it is idle (GOAWAY IdleTimeout).
    static func readTimeout(_ policy: GatewayConfiguration.ConnectionPolicy) -> TimeAmount {
        TimeAmount(policy.idleTimeout)
    }

    /// A client's address as people write one: `127.0.0.1:53211`, `[::1]:53211`.
    static func shown(_ address: SocketAddress?) -> String {
        guard let address, let ip = address.ipAddress, let port = address.port else { return address?.description ?? "?" }
        if case .v6 = address { return "[\(ip)]:\(port)" }
        return "\(ip):\(port)"
    }

    func bind(host: String, port: Int, group: any EventLoopGroup, quiesce: ServerQuiescingHelper) async throws -> any Channel {
        let environment = self.environment, role = self.role
        let services = self.services
        let sslContext = self.sslContext
        let certificateCheck = self.certificateCheck
        return try await Listener.bootstrap(group: group, quiesce: quiesce)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = ProviderConnection(environment: environment, role: role, services: services,
                                                        remoteAddress: Self.shown(channel.remoteAddress))
                    if let fault = services.faults.handshakeHang(environment: environment, now: services.clock.now()) {
                        connection.recordFault(fault, event: "HANG", explanation: "the TLS handshake is held: the ClientHello is read and never answered")
                        services.metrics.connectionRefused("hang")
                        try channel.pipeline.syncOperations.addHandler(HeldHandshake())
                        return
                    }
                    // TLS accepts any client certificate; ProviderCertificateCheck decides what it means.
                    let tls = NIOSSLServerHandler(context: sslContext) { certificates, promise in
                        let chain = certificates.compactMap { try? Certificate(derEncoded: $0.toDERBytes()) }
                        connection.auth = chain.count == certificates.count
                            ? certificateCheck.authenticate(chain: chain)
                            : .badCertificate("the client certificate is not a readable X.509 certificate")
                        promise.succeed(.certificateVerified)
                    }
                    let sync = channel.pipeline.syncOperations
                    let sniffer = TLSAlertSniffer()
                    try sync.addHandler(ReadTimeoutHandler(timeout: Self.readTimeout(services.policy)))
                    try sync.addHandler(sniffer)
                    try sync.addHandler(tls)
                    try sync.addHandler(ProtocolSelectionHandler(connection: connection, sniffer: sniffer))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
