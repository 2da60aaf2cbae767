import APNSimRules
import NIOCore
import NIOExtras
import NIOPosix
import NIOSSL

/// The device link's listener (Apple's device port, 5223): TLS that requires a device identity certificate
/// from the development CA, then ``DeviceLinkHandler``.
struct DeviceLinkEndpoint {
    let services: DeviceServices
    let sslContext: NIOSSLContext

    /// How long a link may stay silent: three heartbeat intervals of `heartbeatInterval` seconds.
    static func readTimeout(heartbeatInterval: Double) -> TimeAmount {
        .milliseconds(Int64(saturating: heartbeatInterval * 3000))
    }

    func bind(host: String, port: Int, group: any EventLoopGroup, quiesce: ServerQuiescingHelper) async throws -> any Channel {
        let services = self.services
        let sslContext = self.sslContext
        let waterMark = ChannelOptions.Types.WriteBufferWaterMark(low: max(services.bufferLimit / 2, 1),
                                                                     high: max(services.bufferLimit, 2))
        return try await Listener.bootstrap(group: group, quiesce: quiesce)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // Past the limit the channel stops being writable, and DeviceLinkHandler ends the link.
                    try channel.syncOptions?.setOption(.writeBufferWaterMark, value: waterMark)
                    // A link silent for three heartbeat intervals is dead: DeviceLinkHandler closes it.
                    try channel.pipeline.syncOperations.addHandler(
                        ReadTimeoutHandler(timeout: Self.readTimeout(heartbeatInterval: services.heartbeatInterval)))
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    try channel.pipeline.syncOperations.addHandler(DeviceLinkHandler(services: services))
                }
            }
            .bind(host: host, port: port)
            .get()
    }
}
