@testable import APNSimExtensions
import APNSimTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// Attachment downloads of plain `http://` URLs go over apnsim's own connections (`PlainHTTPConnections`), the rest
/// through async-http-client: the URLs each takes, redirects read by async-http-client's rules, and kept connections
/// the server has closed.
@Suite("Plain HTTP downloads")
struct PlainHTTPDownloadTests {
    @Test("A plain http URL is read into its host, port and request target", arguments: [
        ("http://127.0.0.1:8199/media/a.jpg?x=1#part", "127.0.0.1", 8199, "/media/a.jpg?x=1"),
        ("HTTP://Media.Example.COM/a", "media.example.com", 80, "/a"),
        ("http://example.com", "example.com", 80, "/"),
        ("http://example.com?q=1", "example.com", 80, "/?q=1"),
        ("http://example.com:/a%20b.jpg", "example.com", 80, "/a%20b.jpg"),
        ("http://[::1]:8080/x", "::1", 8080, "/x"),
    ])
    func plainTarget(url: String, host: String, port: Int, path: String) throws {
        let target = try #require(PlainHTTPTarget(url))
        #expect(target.host == .init(name: host, port: port))
        #expect(target.path == path)
    }

    @Test("The Host header names the port only when it is not 80, and an IPv6 address in brackets")
    func hostHeader() {
        #expect(PlainHTTPConnections.Host(name: "media.test", port: 80).header == "media.test")
        #expect(PlainHTTPConnections.Host(name: "127.0.0.1", port: 8199).header == "127.0.0.1:8199")
        #expect(PlainHTTPConnections.Host(name: "::1", port: 8080).header == "[::1]:8080")
    }

    @Test("Any other URL is async-http-client's", arguments: [
        "https://example.com/a.jpg", "ftp://example.com/a", "http://user:secret@example.com/a", "http://example.com:0/a",
        "http://example.com:99999/", "http://example.com:port/", "http:///a", "http://exa mple.com/a", "http://example.com/a b.jpg",
        "http://example.com/é.jpg", "http://[::1/a", "media/a.jpg",
    ])
    func notPlain(url: String) {
        #expect(PlainHTTPTarget(url) == nil)
    }

    @Test("A redirect is read as async-http-client reads one")
    func redirects() {
        func head(_ status: HTTPResponseStatus, _ location: String?) -> HTTPResponseHead {
            HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders(location.map { [("Location", $0)] } ?? []))
        }
        let from = "http://media.test:8199/media/a.jpg?redirect=2"
        #expect(PlainHTTPTarget.redirect(head(.found, "/media/b.jpg"), from: from) == "http://media.test:8199/media/b.jpg")
        #expect(PlainHTTPTarget.redirect(head(.movedPermanently, "c.jpg?x=1"), from: from) == "http://media.test:8199/media/c.jpg?x=1")
        #expect(PlainHTTPTarget.redirect(head(.temporaryRedirect, "https://cdn.test/a.jpg"), from: from) == "https://cdn.test/a.jpg")
        for status in [HTTPResponseStatus.seeOther, .notModified, .useProxy, .permanentRedirect] {
            #expect(PlainHTTPTarget.redirect(head(status, "/x"), from: from) == "http://media.test:8199/x", "\(status)")
        }
        #expect(PlainHTTPTarget.redirect(head(.found, "ftp://media.test/a"), from: from) == nil, "not to another scheme")
        #expect(PlainHTTPTarget.redirect(head(.found, nil), from: from) == nil, "no Location: the answer itself")
        #expect(PlainHTTPTarget.redirect(head(.ok, "/x"), from: from) == nil)
        #expect(PlainHTTPTarget.redirect(head(.multipleChoices, "/x"), from: from) == nil)
    }

    @Test("Connections are kept for the next download, and one the server closed on it is replaced", .hangGuard)
    func keptConnections() async throws {
        let server = try await KeepAliveServer.start()
        defer { server.stop() }
        let connections = PlainHTTPConnections()
        let host = PlainHTTPConnections.Host(name: "127.0.0.1", port: server.port)
        func get() async throws -> String {
            let answer = try await connections.get("/a", of: host, limit: 1 << 20, deadline: .now() + .seconds(600))
            return "\(answer.head.status.code) \(String(buffer: answer.body))"
        }
        #expect(try await get() == "200 answer 1 on connection 1")
        #expect(try await get() == "200 answer 2 on connection 1", "the same connection, kept")
        // The server takes the third request on that connection and closes it unanswered, as a server whose idle
        // timeout ran out as the request came: the download goes once more, on a new connection.
        server.closeUnansweredAt(request: 3)
        #expect(try await get() == "200 answer 4 on connection 2")
        // Bytes nobody asked for on the kept connection, between downloads: it is closed, and the next goes on a new one.
        let closed = try await withHangGuard { try await server.sendUnasked(on: 2) }
        try #require(closed != nil, "the client did not close a kept connection its server sent unasked bytes on")
        #expect(try await get() == "200 answer 5 on connection 3")
    }
}

/// An HTTP/1.1 server that answers each request with its number and its connection's, keeping connections open,
/// except the one request it is told to take and close the connection on without answering.
private final class KeepAliveServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let counts: Counts

    final class Counts: Sendable {
        struct State {
            var requests = 0
            var connections = 0
            var closeAt: Int?
            /// Each connection's channel, by its number, to write on it below the HTTP codec.
            var channels: [Int: any Channel] = [:]
        }
        let state = Mutex(State())
    }

    private init(port: Int, channel: any Channel, counts: Counts) {
        self.port = port
        self.channel = channel
        self.counts = counts
    }

    static func start() async throws -> KeepAliveServer {
        let counts = Counts()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = counts.state.withLock { state in
                        state.connections += 1
                        state.channels[state.connections] = channel
                        return state.connections
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Answerer(connection: connection, counts: counts))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return KeepAliveServer(port: channel.localAddress?.port ?? 0, channel: channel, counts: counts)
    }

    func closeUnansweredAt(request: Int) { counts.state.withLock { $0.closeAt = request } }

    /// Writes a line that is no HTTP answer on connection `number`, and returns once the client has closed it.
    func sendUnasked(on number: Int) async throws {
        let channel = try #require(counts.state.withLock { $0.channels[number] })
        // Written from the response encoder's place in the pipeline, so that it goes to the socket as it is.
        try await channel.eventLoop.submit {
            let encoder = try channel.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            encoder.writeAndFlush(NIOAny(ByteBuffer(string: "NOT HTTP AT ALL\r\n\r\n")), promise: nil)
        }.get()
        // The server closes it itself when the wait is given up, so that a hang guard can end the wait.
        try await withTaskCancellationHandler {
            try await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    func stop() { channel.close(promise: nil) }

    private final class Answerer: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let connection: Int
        let counts: Counts

        init(connection: Int, counts: Counts) {
            self.connection = connection
            self.counts = counts
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let (number, close) = counts.state.withLock { state -> (Int, Bool) in
                state.requests += 1
                return (state.requests, state.requests == state.closeAt)
            }
            if close {
                context.close(promise: nil)
                return
            }
            let body = ByteBuffer(string: "answer \(number) on connection \(connection)")
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["content-length": "\(body.readableBytes)"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
