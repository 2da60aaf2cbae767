@testable import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import APNSimTestSupport
import Testing

/// The provider connection's handler in an `EmbeddedChannel`: HTTP/2 frames in, frames and a close out, time moved by
/// hand. What the state machine decides, carried out by the real handler with the real validator and recorder; the
/// same rules over real TLS are in ConnectionTests, ConnectionFaultTests and FaultInjectionTests.
@Suite("Provider connection handler")
struct ProviderConnectionHandlerTests {
    /// One connection's handler on an embedded channel, with the services a gateway gives it.
    struct Connection {
        let channel: EmbeddedChannel
        let loop: EmbeddedEventLoop
        let faults: FaultInjector
        let recorder: SendRecorder
        let connectionRecords: ConnectionRecorder
        let store: any Store
        let clock: ManualClock

        /// `beforeHTTP2`: the connection as it is until its TLS handshake and HTTP/2 preface are done, with the handler
        /// that waits for them (and closes it when the handshake timeout runs out) instead of the HTTP/2 handler.
        /// `idleTimer`: the read timeout `ProviderEndpoint` puts in front (``ReadTimeoutHandler``), on the embedded loop's
        /// clock; without it, a test sends the idle event itself.
        init(policy: GatewayConfiguration.ConnectionPolicy = .init(), beforeHTTP2: Bool = false, idleTimer: Bool = false) throws {
            let clock = ManualClock(Date())
            let store = try SQLiteStore()
            let recorder = SendRecorder(store: store, clock: .manual(clock))
            let connectionRecords = ConnectionRecorder(store: store, clock: .manual(clock))
            let faults = FaultInjector()
            let world = WorldRegistry(TestWorld.make())
            let services = GatewayServices(
                validator: PushValidator(), world: world, recorder: recorder, connectionRecords: connectionRecords, clock: .manual(clock),
                policy: policy, tokenSession: .init(), faults: faults, connections: ProviderConnections(),
                router: PushRouter(directory: DeviceDirectory(registry: world), faults: faults, clock: .manual(clock)),
                commits: nil, tracing: PushTracing(tracer: nil, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })),
                metrics: GatewayMetrics(), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            let connection = ProviderConnection(environment: .development, services: services, remoteAddress: "test")
            loop = EmbeddedEventLoop()
            channel = EmbeddedChannel(loop: loop)
            if idleTimer { try channel.pipeline.syncOperations.addHandler(ReadTimeoutHandler(timeout: ProviderEndpoint.readTimeout(policy))) }
            if beforeHTTP2 {
                try channel.pipeline.syncOperations.addHandler(ProtocolSelectionHandler(connection: connection))
            } else {
                try channel.pipeline.syncOperations.addHandler(
                    ProviderConnectionHandler(connection: connection, watch: ProtocolErrorWatch(connection: connection)))
            }
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
            self.faults = faults
            self.recorder = recorder
            self.connectionRecords = connectionRecords
            self.store = store
            self.clock = clock
        }

        /// A valid alert push to the test world's development token, HEADERS then DATA in one read.
        func push(stream: HTTP2StreamID, body: String = #"{"aps":{"alert":"hi"}}"#) throws {
            let jwt = TestWorld.signer(TestWorld.teamKey).token(issuedAt: clock.now)
            channel.pipeline.fireChannelRead(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: Self.pushHeaders(jwt: jwt)))))
            channel.pipeline.fireChannelRead(HTTP2Frame(streamID: stream,
                                                        payload: .data(.init(data: .byteBuffer(ByteBuffer(string: body)), endStream: true))))
            channel.pipeline.fireChannelReadComplete()
        }

        /// The HEADERS of an alert push to the test world's development token, authorized by `jwt` (none: `nil`).
        static func pushHeaders(jwt: String?) -> HPACKHeaders {
            var headers = HPACKHeaders()
            headers.add(name: ":method", value: "POST")
            headers.add(name: ":scheme", value: "https")
            headers.add(name: ":path", value: "/3/device/\(TestWorld.devToken)")
            if let jwt { headers.add(name: "authorization", value: "bearer \(jwt)") }
            headers.add(name: "apns-topic", value: "com.example.app")
            headers.add(name: "apns-push-type", value: "alert")
            return headers
        }

        /// Every frame written since the last call, as short words: `200@1`, `GOAWAY(1,IdleTimeout)`, `SETTINGS`.
        func written() throws -> [String] {
            var words: [String] = []
            while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
                switch frame.payload {
                case .headers(let headers): words.append("\(headers.headers.first(name: ":status") ?? "?")@\(Int(frame.streamID))")
                case .data: break
                case .goAway(let last, _, let data):
                    let reason = data.map { String(buffer: $0) }.flatMap { $0.split(separator: "\"").dropFirst(3).first } ?? ""
                    words.append("GOAWAY(\(Int(last)),\(reason))")
                case .settings: words.append("SETTINGS")
                default: words.append("\(frame.payload)")
                }
            }
            return words
        }

        var isOpen: Bool { channel.isActive }

        /// Adds a fault of `kind`, as `POST /v1/faults` does.
        func inject(_ kind: Fault.Kind, _ configure: (inout Fault) -> Void) throws {
            var fault = Fault(kind: kind)
            configure(&fault)
            _ = try faults.add([fault], now: clock.now)
        }

        func sends() async throws -> [SendRecord] {
            try await recorder.flush()
            return try await store.sends(matching: .init())
        }

        /// The connection records written so far (`GET /v1/connections`).
        func connections() async throws -> [ConnectionRecord] {
            try await connectionRecords.flush()
            return try await store.connections(matching: .init())
        }
    }

    @Test("A push is answered 200 from its frames and recorded; a push without a topic 400 MissingTopic")
    func answers() async throws {
        let connection = try Connection()
        try connection.push(stream: 1)
        #expect(try connection.written() == ["200@1"])
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":path", value: "/3/device/\(TestWorld.devToken)")
        connection.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: 3, payload: .headers(.init(headers: headers, endStream: true))))
        connection.channel.pipeline.fireChannelReadComplete()
        #expect(try connection.written() == ["400@3"])
        let sends = try await connection.sends()
        #expect(sends.map(\.status).sorted() == [200, 400])
        #expect(sends.first { $0.status == 400 }?.reason == "MissingTopic")
    }

    @Test("A goAway fault after one push: the second push is refused (recorded status 0), GOAWAY names stream 1, then close")
    func goAwayFault() async throws {
        let connection = try Connection()
        try connection.inject(.goAway) { $0.after = 1 }
        try connection.push(stream: 1)
        try connection.push(stream: 3)
        #expect(try connection.written() == ["200@1", "GOAWAY(1,Shutdown)"])
        #expect(!connection.isOpen, "nothing in flight: closed once drained")
        let sends = try await connection.sends()
        #expect(sends.filter { $0.method == "POST" }.map(\.status).sorted() == [0, 200])
        #expect(sends.contains { $0.method == "GOAWAY" })
        let record = try #require(try await connection.connections().first)
        #expect(record.event == .goAway && record.reason == "Shutdown" && record.lastStreamID == 1)
        #expect(record.fault?.hasPrefix("f") == true, "names the fault: \(record)")
    }

    @Test("Shutdown while a latency fault holds an answer: GOAWAY at once, the answer when its time comes, then close")
    func drainWaitsForHeldAnswer() throws {
        let connection = try Connection()
        try connection.inject(.latency) { $0.latencyMs = 100 }
        try connection.push(stream: 1)
        #expect(try connection.written() == [])
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try connection.written() == ["GOAWAY(1,Shutdown)"])
        #expect(connection.isOpen, "the held answer is still in flight")
        connection.loop.advanceTime(by: .milliseconds(99))
        #expect(connection.isOpen)
        connection.loop.advanceTime(by: .milliseconds(1))
        #expect(try connection.written() == ["200@1"])
        #expect(!connection.isOpen)
    }

    @Test("A drain that never ends is closed after the shutdown grace")
    func drainGrace() throws {
        var policy = GatewayConfiguration.ConnectionPolicy()
        policy.shutdownGrace = .seconds(5)
        let connection = try Connection(policy: policy)
        var headers = HPACKHeaders()
        headers.add(name: ":method", value: "POST")
        headers.add(name: ":path", value: "/3/device/\(TestWorld.devToken)")
        connection.channel.pipeline.fireChannelRead(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: headers))))
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try connection.written() == ["GOAWAY(1,Shutdown)"])
        connection.loop.advanceTime(by: .seconds(4))
        #expect(connection.isOpen, "the body of stream 1 may still come")
        connection.loop.advanceTime(by: .seconds(1))
        #expect(!connection.isOpen)
    }

    @Test("Idle: GOAWAY IdleTimeout naming the last stream served, then close, recorded once; a later shutdown sends nothing more")
    func idle() async throws {
        let connection = try Connection()
        try connection.push(stream: 1)
        #expect(try connection.written() == ["200@1"])
        connection.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(try connection.written() == ["GOAWAY(1,IdleTimeout)"])
        #expect(!connection.isOpen)
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(try connection.written() == [])
        let records = try await connection.connections()
        #expect(records.map(\.reason) == ["IdleTimeout"])
        #expect(records.first?.lastStreamID == 1)
        #expect(records.first?.explanation.contains("--idle-timeout") == true)
    }

    @Test("Idle by the loop's clock: the idle timeout after the last push, and not before, GOAWAY IdleTimeout, then close")
    func idleTimeout() throws {
        var policy = GatewayConfiguration.ConnectionPolicy()
        policy.idleTimeout = .seconds(60)
        let connection = try Connection(policy: policy, idleTimer: true)
        connection.loop.advanceTime(by: .seconds(59))
        try connection.push(stream: 1)
        #expect(try connection.written() == ["200@1"])
        connection.loop.advanceTime(by: .seconds(59))
        #expect(connection.isOpen, "59 s after the last push, 118 s after the connection opened")
        #expect(try connection.written() == [])
        connection.loop.advanceTime(by: .seconds(1))
        #expect(try connection.written() == ["GOAWAY(1,IdleTimeout)"])
        #expect(!connection.isOpen)
    }
}
