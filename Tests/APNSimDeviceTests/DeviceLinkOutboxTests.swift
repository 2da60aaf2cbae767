@testable import APNSimDevice
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@Suite("Device link outbox: frames written off the link's reads")
struct DeviceLinkOutboxTests {
    @Test("Frames written before the link's event loop runs go out in one write, in the order written")
    func gathered() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let outbox = DeviceLinkOutbox(channel: channel)
        outbox.write(Array("ack 1;".utf8))
        outbox.write(Array("ack 2;".utf8))
        outbox.write(Array("receipt 1;".utf8))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing is written until the loop runs")
        channel.embeddedEventLoop.run()
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: written) == "ack 1;ack 2;receipt 1;")
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "one write for the three")

        outbox.write(Array("receipt 2;".utf8))
        channel.embeddedEventLoop.run()
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "receipt 2;", "a later frame: a write of its own")
    }

    @Test("Frames that find the link closed are handed back to each sender, and nothing is written")
    func handedBack() throws {
        let channel = EmbeddedChannel()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let outbox = DeviceLinkOutbox(channel: channel)
        let handedBack = Mutex<[String]>([])
        outbox.write(Array("a;".utf8)) { handedBack.withLock { $0.append("device 1") } }
        outbox.write(Array("b;".utf8))
        outbox.write(Array("c;".utf8)) { handedBack.withLock { $0.append("device 2") } }
        _ = try channel.finish()
        channel.embeddedEventLoop.run()
        #expect(handedBack.withLock { $0 } == ["device 1", "device 2"])
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }
}
