import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import APNSimTestSupport
import Foundation
import Logging
import NIOCore
import NIOEmbedded
import Testing

/// The gateway's end of the device link in an `EmbeddedChannel`, as `DeviceLinkEndpoint` builds it behind TLS (the read
/// timeout of three heartbeat intervals, then the handler): frames in, frames and a close out, time moved by hand on the
/// embedded loop's clock, which `ReadTimeoutHandler` reads. The same over real TLS with real devices is in the
/// end-to-end tests' `DeviceLinkTests`.
@Suite("Device link handler")
struct DeviceLinkHandlerTests {
    struct Link {
        let channel: EmbeddedChannel
        let loop: EmbeddedEventLoop
        let directory: DeviceDirectory

        init(heartbeatInterval: Double = 15, bufferLimit: Int = 1 << 20) throws {
            directory = DeviceDirectory(registry: WorldRegistry(TestWorld.make()))
            let services = DeviceServices(directory: directory, tokens: TokenIssuer(), clock: .system, heartbeatInterval: heartbeatInterval,
                                          uninstallDelay: .seconds(0), requests: DeviceRequests(),
                                          summarized: { _ in }, additions: [], bufferLimit: bufferLimit,
                                          logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            loop = EmbeddedEventLoop()
            channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandler(
                ReadTimeoutHandler(timeout: DeviceLinkEndpoint.readTimeout(heartbeatInterval: heartbeatInterval)))
            try channel.pipeline.syncOperations.addHandler(DeviceLinkHandler(services: services))
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2198)).wait()
        }

        /// A frame from the device (naming `deviceID` on a shared link), then what the gateway queued on its loop.
        func send(_ message: DeviceLinkMessage.Written, deviceID: String? = nil) throws {
            try channel.writeInbound(ByteBuffer(bytes: DeviceLinkFraming.frame(message, deviceID: deviceID)))
            loop.run()
        }

        /// Every message written to the device since the last call, with the device each names, as `type` or
        /// `type(deviceID)`, and an error's reason: `welcome`, `welcome(d1)`, `error:HeartbeatTimeout`.
        func received() throws -> [String] {
            var reader = DeviceLinkFraming.Reader()
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { reader.append(buffer.readableBytesView) }
            var words: [String] = []
            while let (deviceID, message) = try reader.nextAddressed() {
                var word = message.type
                if case .error(let error) = message { word += ":\(error.reason)" }
                words.append(deviceID.map { "\(word)(\($0))" } ?? word)
            }
            return words
        }

        var isOpen: Bool { channel.isActive }

        func online(_ id: String) -> Bool { directory.link(of: id) != nil }
    }

    static func device(_ id: String) -> DeviceDescriptor { DeviceDescriptor(id: id, name: id) }

    @Test("A device's hello is answered welcome with the heartbeat interval, and the device is online until its link closes")
    func hello() throws {
        let link = try Link(heartbeatInterval: 7)
        try link.send(.hello(.init(device: Self.device("d1"))))
        #expect(try link.received() == ["welcome"])
        #expect(link.online("d1"))
        try link.channel.close().wait()
        #expect(!link.online("d1"))
    }

    @Test("A first message that is not hello or link, or a version the gateway does not speak, gets its error, then the link closes",
          arguments: [(DeviceLinkMessage.Written.heartbeat(.init(sequence: 1)), "HelloFirst"),
                      (.hello(.init(version: 99, device: DeviceLinkHandlerTests.device("d1"))), "UnsupportedVersion"),
                      (.link(.init(version: 0, host: "p1")), "UnsupportedVersion")])
    func badOpening(_ first: DeviceLinkMessage.Written, reason: String) throws {
        let link = try Link()
        try link.send(first)
        #expect(try link.received() == ["error:\(reason)"])
        #expect(!link.isOpen)
    }

    @Test("On a shared link each device joins with its own hello and is welcomed by name; a hello naming another device, or a message before hello, gets an error and the link stays up")
    func join() throws {
        let link = try Link()
        try link.send(.link(.init(host: "process-1")))
        #expect(try link.received() == ["welcome"])
        try link.send(.hello(.init(device: Self.device("d1"))), deviceID: "d1")
        try link.send(.hello(.init(device: Self.device("d2"))), deviceID: "d2")
        #expect(try link.received() == ["welcome(d1)", "welcome(d2)"])
        #expect(link.online("d1") && link.online("d2"))
        try link.send(.hello(.init(device: Self.device("d3"))), deviceID: "d4")
        try link.send(.register(.init(bundleID: "com.example.app", environment: .development, installation: "i1")), deviceID: "d5")
        let errors = try link.received()
        #expect(errors == ["error:BadHello(d4)", "error:HelloFirst(d5)"])
        #expect(link.isOpen)
        #expect(!link.online("d3") && !link.online("d4"))
    }

    @Test("A heartbeat is answered with its sequence; a link silent for three heartbeat intervals is closed with HeartbeatTimeout, and not before")
    func heartbeatTimeout() throws {
        let link = try Link(heartbeatInterval: 10)
        try link.send(.hello(.init(device: Self.device("d1"))))
        _ = try link.received()
        link.loop.advanceTime(by: .seconds(29))
        try link.send(.heartbeat(.init(sequence: 7)))
        #expect(try link.received() == ["heartbeatAck"])
        link.loop.advanceTime(by: .seconds(29))
        #expect(link.isOpen, "29 s after the last heartbeat")
        link.loop.advanceTime(by: .seconds(1))
        #expect(try link.received() == ["error:HeartbeatTimeout"])
        #expect(!link.isOpen)
        #expect(!link.online("d1"))
    }

    @Test("A link that takes nothing more keeps what is written to it up to its limit, then ends without a last message; under the limit, what waited goes once it takes more")
    func writeBufferLimit() throws {
        let link = try Link(bufferLimit: 200)
        try link.send(.hello(.init(device: Self.device("d1"))))
        #expect(try link.received() == ["welcome"])
        link.channel.isWritable = false
        for sequence in 1...3 { try link.send(.heartbeat(.init(sequence: sequence))) }
        #expect(try link.received() == [], "nothing written while the link takes nothing")
        link.channel.isWritable = true
        link.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try link.received() == ["heartbeatAck", "heartbeatAck", "heartbeatAck"])

        link.channel.isWritable = false
        for sequence in 4...20 { try link.send(.heartbeat(.init(sequence: sequence))) }
        #expect(!link.isOpen, "past 200 bytes unread")
        #expect(try link.received() == [], "no room for a last message")
        #expect(!link.online("d1"))
    }
}
