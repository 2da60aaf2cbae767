import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPCompression

/// Gzip for the media server's `gzip=1`, by NIOHTTPCompression's own response compressor: one response written
/// through it on an embedded channel.
enum Gzip {
    static func compress(_ bytes: [UInt8]) throws -> ByteBuffer {
        let channel = EmbeddedChannel(handler: HTTPResponseCompressor())
        defer { _ = try? channel.finish() }
        var request = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
        request.headers.add(name: "accept-encoding", value: "gzip")
        try channel.writeInbound(HTTPServerRequestPart.head(request))
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: bytes))))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        var compressed = ByteBuffer()
        while let part = try channel.readOutbound(as: HTTPServerResponsePart.self) {
            if case .body(.byteBuffer(var chunk)) = part { compressed.writeBuffer(&chunk) }
        }
        return compressed
    }
}
