import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A minimal APNs provider connection over TLS + HTTP/2 (ALPN h2), used by `apnsim send` and the tests.
///
/// ```swift
/// let client = try await ProviderClient.connect(.init(host: "127.0.0.1", port: 2197, caFile: "Certs/ca.pem"))
/// let response = try await client.send(.push(token: token, payload: #"{"aps":{"alert":"hi"}}"#,
///                                               headers: [("apns-topic", "com.example.app"), ("authorization", "bearer \(jwt)")]))
/// try await client.close()
/// ```
public final class ProviderClient: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        /// The TLS server name (SNI and certificate check); Apple's sandbox host by default.
        public var serverHostname: String = "api.sandbox.push.apple.com"
        /// PEM file of the CA that issued the gateway's certificate.
        public var caFile: String
        /// PEM files of a client certificate and its key, for certificate auth.
        public var clientCertificate: (certificate: String, key: String)?
        /// ALPN protocols to offer.
        public var applicationProtocols = ["h2"]
        /// Gives up on a server that has stopped answering, as provider libraries time out: a connection whose TLS
        /// handshake and first SETTINGS have not come this long after the TCP connection is closed, and closing
        /// waits no longer than this for the server's TLS close_notify. `nil` waits as long as it takes (and NIOSSL's
        /// 5 s for close_notify).
        public var setupTimeout: Duration?

        public init(host: String, port: Int, caFile: String) {
            self.host = host
            self.port = port
            self.caFile = caFile
        }
    }

    private let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let events: ConnectionEvents

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer, events: ConnectionEvents) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.events = events
    }

    /// Opens the connection and waits for the server's first SETTINGS frame (as pushy does before sending).
    public static func connect(_ configuration: Configuration) async throws -> ProviderClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(configuration.caFile)
        tls.applicationProtocols = configuration.applicationProtocols
        let giveUpAfter = configuration.setupTimeout.map { TimeAmount.nanoseconds(Int64($0.components.seconds) * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000) }
        if let giveUpAfter { tls.shutdownTimeout = giveUpAfter }
        if let client = configuration.clientCertificate {
            tls.certificateChain = try NIOSSLCertificate.fromPEMFile(client.certificate).map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: client.key, format: .pem))
        }
        let sslContext = try NIOSSLContext(configuration: tls)
        let events = ConnectionEvents()
        let serverHostname = configuration.serverHostname
        // Everything is set up in the initializer, on the event loop before the connection starts, so no byte of the
        // server's can arrive ahead of the handler that must read it. (A callback on the future `connect` returns is
        // attached too late when the calling task is descheduled: ConnectionSetupTests.)
        let (channel, multiplexer) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture { () -> (any Channel, NIOHTTP2Handler.StreamMultiplexer) in
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname))
                    try sync.addHandler(FrameTrace(events: events))
                    let multiplexer = try sync.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in stream.eventLoop.makeSucceededVoidFuture() }
                    try sync.addHandler(ConnectionEventsHandler(events: events))
                    return (channel, multiplexer)
                }
            }
        let client = ProviderClient(channel: channel, multiplexer: multiplexer, events: events)
        // Closing fires firstSettings (ConnectionEventsHandler.channelInactive): the client comes back closed.
        let giveUp = giveUpAfter.map { timeout in
            channel.eventLoop.scheduleTask(in: timeout) {
                events.ending(because: "the TLS handshake and the server's first SETTINGS did not come in time")
                channel.close(promise: nil)
            }
        }
        try await events.firstSettings.futureResult(on: channel.eventLoop).get()
        giveUp?.cancel()
        return client
    }

    /// Sends one request on a new stream and waits for its whole response.
    public func send(_ request: ProviderRequest) async throws -> ProviderResponse {
        let promise = channel.eventLoop.makePromise(of: ProviderResponse.self)
        let stream: any Channel
        do {
            stream = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }.get()
        } catch {
            // No stream, so no collector to complete the promise (the connection closed, or the server refused
            // another stream): complete it here, or NIO reports a leaked promise.
            promise.fail(error)
            if let reason = events.closeReason {
                let frames = events.firstFrames
                throw ProviderClientError("the connection closed before the request could be sent: \(reason)"
                                          + (frames.isEmpty ? "; the server had sent no HTTP/2 frame" : "; the server had sent \(frames.joined(separator: ", "))"))
            }
            throw error
        }
        var headers = HPACKHeaders()
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        let payloads: [HTTP2Frame.FramePayload] =
            [.headers(.init(headers: headers, endStream: request.chunks.isEmpty))]
            + request.chunks.enumerated().map { index, chunk in
                .data(.init(data: .byteBuffer(ByteBuffer(bytes: chunk)), endStream: index == request.chunks.count - 1))
            }
        for payload in payloads { stream.write(payload, promise: nil) }
        stream.flush()
        return try await promise.futureResult.get()
    }

    /// Every SETTINGS parameter the server has sent, latest value wins.
    public var remoteSettings: [HTTP2SettingsParameter: Int] { events.settings }

    /// ``remoteSettings`` by RFC 9113's names in camel case (`maxConcurrentStreams`), for reports.
    public var namedRemoteSettings: [String: Int] {
        let names: [HTTP2SettingsParameter: String] = [
            .headerTableSize: "headerTableSize", .maxConcurrentStreams: "maxConcurrentStreams",
            .initialWindowSize: "initialWindowSize", .maxFrameSize: "maxFrameSize", .maxHeaderListSize: "maxHeaderListSize",
        ]
        var named: [String: Int] = [:]
        for (parameter, value) in remoteSettings { if let name = names[parameter] { named[name] = value } }
        return named
    }

    /// Waits for the server's GOAWAY (or the connection's end, which yields `nil`).
    public func goAway() async -> GoAwayFrame? {
        await events.waitForGoAway(closeFuture: channel.closeFuture)
    }

    /// Waits until the connection is closed by either side.
    public func closed() async {
        try? await channel.closeFuture.get()
    }

    public var isActive: Bool { channel.isActive }

    /// Why the connection ended, once it has: an error, a GOAWAY, the server closing it, or a handshake given up on.
    public var closeReason: String? { events.closeReason }

    /// Sends a PING and waits for its ACK.
    public func ping() async throws {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        events.pingAck(promise)
        try await channel.writeAndFlush(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 42), ack: false)))
        try await promise.futureResult.get()
    }

    public func close() async {
        try? await channel.close()
    }
}
