import NIOCore
import NIOExtras
import NIOPosix

/// The TCP listener set-up every gateway endpoint shares: address reuse, Nagle off, and the quiescing handler
/// that lets a graceful shutdown reach each connection.
enum Listener {
    static func bootstrap(group: any EventLoopGroup, quiesce: ServerQuiescingHelper) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
                }
            }
            // TCP_NODELAY is an option of the TCP level: `.socketOption(.tcp_nodelay)` once set option 1 of the socket
            // level, SO_DEBUG, which needs CAP_NET_ADMIN and so failed every connection in a container.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    }
}
