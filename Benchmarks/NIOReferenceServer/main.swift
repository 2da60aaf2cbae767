// The reference the provider benchmark (Benchmarks/provider.sh) measures apnsim against: SwiftNIO's own HTTP/2 over
// TLS, the same libraries and certificate the gateway uses, answering every request as APNs answers a push it accepts
// (`:status 200` and an `apns-id`), with nothing in between: no validation, no routing, no record. apnsim's ratio to
// it is what its own work costs over SwiftNIO's.
//
// Usage: nio-reference-server PORT CERTIFICATE.pem KEY.pem
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL

/// One stream: reads the request to its end, then answers 200.
final class AcceptEveryPush: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let ended = switch unwrapInboundIn(data) {
        case .headers(let headers): headers.endStream
        case .data(let data): data.endStream
        default: false
        }
        guard ended else { return }
        let headers: HPACKHeaders = [":status": "200", "apns-id": UUID().uuidString]
        context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: nio-reference-server PORT CERTIFICATE.pem KEY.pem\n".utf8))
    exit(64)
}
var tls = TLSConfiguration.makeServerConfiguration(
    certificateChain: try NIOSSLCertificate.fromPEMFile(arguments[2]).map { .certificate($0) },
    privateKey: .privateKey(try NIOSSLPrivateKey(file: arguments[3], format: .pem)))
tls.applicationProtocols = ["h2"]
let sslContext = try NIOSSLContext(configuration: tls)

let server = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
        }.flatMap {
            channel.configureHTTP2Pipeline(mode: .server, initialLocalSettings: [HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000)]) { stream in
                stream.eventLoop.makeCompletedFuture { try stream.pipeline.syncOperations.addHandler(AcceptEveryPush()) }
            }.map { _ in }
        }
    }
    .bind(host: "127.0.0.1", port: port).wait()
print("listening on 127.0.0.1:\(port)")
try server.closeFuture.wait()
