import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import Synchronization

/// The attachment downloads of plain `http://` URLs (the media server's, a team's local CDN double): one `GET` at a
/// time on each connection, connections kept open per host and port for the next download, up to
/// ``connectionsPerHost`` of them, as the shared async-http-client pool keeps them (``AttachmentDownloader``). One
/// exchange, not a download: redirects are the downloader's to follow.
///
/// Why not async-http-client, which still does `https://`: its request machinery (a transaction, its state machines,
/// an async sequence for the body) cost the device 196,000 of a rich push's 587,000 instructions
/// (`Benchmarks/instructions.sh`, the rich path; docs/speed.md).
final class PlainHTTPConnections: Sendable {
    static let shared = PlainHTTPConnections()
    /// As the shared async-http-client's pool (``AttachmentDownloader/sharedClient``).
    static let connectionsPerHost = 64

    struct Host: Hashable, Sendable {
        var name: String
        var port: Int

        /// The `Host` header for it: the port only when it is not 80, an IPv6 address in brackets.
        var header: String {
            let name = name.utf8.contains(UInt8(ascii: ":")) ? "[\(name)]" : name
            return port == 80 ? name : "\(name):\(port)"
        }
    }

    /// What a host answered: the head, and for a 2xx the body (decoded when it came compressed). Any other answer
    /// ends at its head: its body is not read, and its connection not kept.
    struct Answer: Sendable {
        var head: HTTPResponseHead
        var body = ByteBuffer()

        var isSuccess: Bool { (200..<300).contains(head.status.code) }
    }

    private struct Pool {
        var idle: [any Channel] = []
        /// Connections open or opening, idle ones included.
        var open = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let pools = Mutex<[Host: Pool]>([:])
    private let group: any EventLoopGroup

    init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    /// `GET path` of `host`, by `deadline`; a 2xx's body up to `limit` bytes (more throws `NIOTooManyBytesError`, by
    /// the `Content-Length` before any of it is read). A kept connection the host has closed meanwhile is replaced once.
    func get(_ path: String, of host: Host, limit: Int, deadline: NIODeadline) async throws -> Answer {
        var (channel, reused) = try await connection(to: host, deadline: deadline)
        while true {
            do {
                let answer = try await exchange(path, host: host, on: channel, limit: limit, deadline: deadline)
                release(channel, of: host, keep: answer.isSuccess && answer.head.isKeepAlive)
                return answer
            } catch is Exchange.Unanswered where reused {
                // The host closed a kept connection before answering on it (its idle timeout): once more on a new one.
                release(channel, of: host, keep: false)
                channel = try await opened(to: host, deadline: deadline)
                reused = false
            } catch {
                release(channel, of: host, keep: false)
                throw error
            }
        }
    }

    /// An idle connection to `host`, or a new one; past ``connectionsPerHost`` open, waits for one to be released.
    private func connection(to host: Host, deadline: NIODeadline) async throws -> (any Channel, reused: Bool) {
        while true {
            enum Next { case use(any Channel), open, wait }
            let next = pools.withLock { pools -> Next in
                while let channel = pools[host, default: Pool()].idle.popLast() {
                    if channel.isActive { return .use(channel) }
                    pools[host]!.open -= 1
                }
                guard pools[host, default: Pool()].open < Self.connectionsPerHost else { return .wait }
                pools[host, default: Pool()].open += 1
                return .open
            }
            switch next {
            case .use(let channel):
                return (channel, true)
            case .open:
                return (try await connect(counted: host, deadline: deadline), false)
            case .wait:
                await withCheckedContinuation { waiter in
                    let resumeNow = pools.withLock { pools -> Bool in
                        // Released between the look above and now: look again at once.
                        if pools[host, default: Pool()].open < Self.connectionsPerHost || !pools[host, default: Pool()].idle.isEmpty { return true }
                        pools[host, default: Pool()].waiting.append(waiter)
                        return false
                    }
                    if resumeNow { waiter.resume() }
                }
            }
        }
    }

    /// A new connection in place of one released already.
    private func opened(to host: Host, deadline: NIODeadline) async throws -> any Channel {
        pools.withLock { $0[host, default: Pool()].open += 1 }
        return try await connect(counted: host, deadline: deadline)
    }

    /// A new connection to `host`, counted open already: if it cannot be made, the count goes back down.
    private func connect(counted host: Host, deadline: NIODeadline) async throws -> any Channel {
        do {
            return try await connect(to: host, deadline: deadline)
        } catch {
            release(nil, of: host, keep: false)
            throw error
        }
    }

    private func connect(to host: Host, deadline: NIODeadline) async throws -> any Channel {
        let timeout = max(deadline - .now(), .zero)
        // No socket options of its own: ClientBootstrap sets TCP_NODELAY already. (`.socketOption(.tcp_nodelay)` is
        // SOL_SOCKET's option 1, SO_DEBUG, which a container refuses: Interop/compose_check.sh caught it.)
        return try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(HTTPRequestEncoder())
                    try sync.addHandler(ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes,
                                                                                 informationalResponseStrategy: .forward)))
                    // As async-http-client decodes (``AttachmentDownloader/sharedClient``): gzip and deflate, up to 100
                    // times the compressed size.
                    try sync.addHandler(NIOHTTPResponseDecompressor(limit: .ratio(100)))
                    try sync.addHandler(Exchange())
                }
            }
            .connect(host: host.name, port: host.port)
            .get()
    }

    /// `channel` is done with: kept for the next download, or closed; either way a waiter may go on.
    private func release(_ channel: (any Channel)?, of host: Host, keep: Bool) {
        let keeping = keep && channel?.isActive == true
        let waiter = pools.withLock { pools -> CheckedContinuation<Void, Never>? in
            if keeping, let channel {
                pools[host, default: Pool()].idle.append(channel)
            } else {
                pools[host, default: Pool()].open -= 1
            }
            return pools[host, default: Pool()].waiting.isEmpty ? nil : pools[host]!.waiting.removeFirst()
        }
        if !keeping { channel?.close(promise: nil) }
        waiter?.resume()
    }

    private func exchange(_ path: String, host: Host, on channel: any Channel, limit: Int,
                          deadline: NIODeadline) async throws -> Answer {
        let promise = channel.eventLoop.makePromise(of: Answer.self)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path,
                                   headers: ["host": host.header])
        channel.eventLoop.execute {
            do {
                let exchange = try channel.pipeline.syncOperations.handler(type: Exchange.self)
                exchange.start(Exchange.Pending(promise: promise, limit: limit), deadline: deadline, on: channel)
                channel.write(HTTPClientRequestPart.head(head), promise: nil)
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            } catch {
                promise.fail(error)
            }
        }
        return try await withTaskCancellationHandler {
            try await promise.futureResult.get()
        } onCancel: {
            channel.eventLoop.execute {
                (try? channel.pipeline.syncOperations.handler(type: Exchange.self))?.fail(HTTPClientError.cancelled, on: channel)
            }
        }
    }

    /// One connection's exchange in progress: the answer's head, then its body, on the connection's event loop.
    final class Exchange: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart

        /// The connection closed before any of the answer came.
        struct Unanswered: Error, CustomStringConvertible {
            var description: String { "the server closed the connection without answering" }
        }

        struct Pending {
            var promise: EventLoopPromise<Answer>
            var limit: Int
            var head: HTTPResponseHead?
            var body = ByteBuffer()
            var timer: Scheduled<Void>?

            init(promise: EventLoopPromise<Answer>, limit: Int) {
                self.promise = promise
                self.limit = limit
            }
        }

        private var pending: Pending?

        func start(_ exchange: Pending, deadline: NIODeadline, on channel: any Channel) {
            guard channel.isActive else {
                exchange.promise.fail(Unanswered())
                return
            }
            pending = exchange
            // Cancelled, on this event loop, when the exchange ends; so when it runs, this exchange is the one going on.
            pending?.timer = channel.eventLoop.scheduleTask(deadline: deadline) {
                (try? channel.pipeline.syncOperations.handler(type: Exchange.self))?.fail(HTTPClientError.deadlineExceeded, on: channel)
            }
        }

        func fail(_ error: any Error, on channel: any Channel) {
            guard let exchange = pending else { return }
            pending = nil
            exchange.timer?.cancel()
            exchange.promise.fail(error)
            channel.close(promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard var exchange = pending else { return }  // an answer nobody asked for: dropped with the connection later
            switch unwrapInboundIn(data) {
            case .head(let head):
                guard head.status.code >= 200 else { return }  // 1xx: the answer is still to come
                exchange.head = head
                guard (200..<300).contains(head.status.code) else {
                    pending = nil
                    exchange.timer?.cancel()
                    exchange.promise.succeed(Answer(head: head))
                    return
                }
                if let length = head.headers.first(name: "content-length").flatMap({ Int($0, radix: 10) }), length > exchange.limit {
                    fail(NIOTooManyBytesError(maxBytes: exchange.limit), on: context.channel)
                    return
                }
            case .body(var part):
                guard exchange.body.readableBytes + part.readableBytes <= exchange.limit else {
                    fail(NIOTooManyBytesError(maxBytes: exchange.limit), on: context.channel)
                    return
                }
                if exchange.body.readableBytes == 0 { exchange.body = part } else { exchange.body.writeBuffer(&part) }
            case .end:
                pending = nil
                exchange.timer?.cancel()
                guard let head = exchange.head else {
                    exchange.promise.fail(HTTPClientError.remoteConnectionClosed)
                    return
                }
                exchange.promise.succeed(Answer(head: head, body: exchange.body))
                return
            }
            pending = exchange
        }

        func channelInactive(context: ChannelHandlerContext) {
            if let exchange = pending {
                fail(exchange.head == nil && exchange.body.readableBytes == 0 ? Unanswered() : HTTPClientError.remoteConnectionClosed,
                     on: context.channel)
            }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            guard pending != nil else {
                // Between downloads (a server sending what nobody asked for): the connection is no good for the next.
                context.close(promise: nil)
                return
            }
            fail(error, on: context.channel)
        }
    }
}
