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
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    }
}
