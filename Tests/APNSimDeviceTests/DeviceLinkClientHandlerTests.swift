@testable import APNSimDevice
@testable import APNSimDeviceLink
import APNSimRules
import Foundation
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

/// The device's end of the device link in an `EmbeddedChannel`: frames in, frames out, time moved by hand on the
/// embedded loop. The devices are a stand-in peer that records what it is given.
@Suite("Device link handler (device)")
struct DeviceLinkClientHandlerTests {
    /// Records what the link hands its devices; a device named in `restarting` restarts at its next message.
    final class Peer: DeviceLinkPeer {
        let delivered = Mutex<[String]>([])
        let restarting: Set<String>

        init(restarting: Set<String> = []) { self.restarting = restarting }

        func deliver(_ message: DeviceLinkMessage.ToDevice, to device: String?) throws -> [UInt8] {
            delivered.withLock { $0.append("\(message.type)(\(device ?? "own"))") }
            if let device, restarting.contains(device), case .push = message { throw DeviceRestarted() }
            return []
        }
        func carry(_ carry: DeviceLinkMessage.Carry) {}
        func sessionEnded(_ device: String, reason: String) {
            delivered.withLock { $0.append("ended(\(device)):\(reason)") }
        }
        func misplaced(_ sentence: String) {}
    }

    struct Link {
        let channel: EmbeddedChannel
        let loop = EmbeddedEventLoop()
        let peer: Peer
        let handler: DeviceLinkClientHandler

        init(_ machine: DeviceLinkClientStateMachine, peer: Peer = Peer()) throws {
            self.peer = peer
            channel = EmbeddedChannel(loop: loop)
            handler = DeviceLinkClientHandler(machine: machine, peer: peer, eventLoop: loop)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 2197)).wait()
        }

        func send(_ message: DeviceLinkMessage.ToDevice, deviceID: String? = nil) throws {
            try channel.writeInbound(ByteBuffer(bytes: DeviceLinkFraming.frame(message, deviceID: deviceID)))
            loop.run()
        }

        /// What the device wrote since the last call, as `type` or `type(deviceID)`, an error with its reason.
        func written() throws -> [String] {
            var reader = DeviceLinkFraming.Reader()
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) { reader.append(buffer.readableBytesView) }
            var words: [String] = []
            while let body = try reader.nextBody() {
                let message = try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(body))
                var word = message.type
                if case .error(let error) = message { word += ":\(error.reason)" }
                words.append(word + (try DeviceLinkFraming.deviceID(in: body).map { "(\($0))" } ?? ""))
            }
            return words
        }
    }

    static func hello(_ id: String) -> DeviceLinkMessage.Hello { .init(device: .init(id: id, name: id), host: "process-1") }

    @Test("After the gateway's welcome the device beats at the gateway's interval, not its own (it kept its own, 15 s, and a gateway at 2 s ended its link)")
    func beatsAtTheGatewaysInterval() throws {
        let link = try Link(DeviceLinkClientStateMachine(devices: .own(Self.hello("d1")), heartbeatEvery: .seconds(15), maximumBackoff: .seconds(8)))
        #expect(try link.written() == ["hello"])
        try link.send(.welcome(.init(heartbeatInterval: 2)))
        #expect(link.peer.delivered.withLock { $0 } == ["welcome(own)"])
        link.loop.advanceTime(by: .milliseconds(1999))
        #expect(try link.written().isEmpty)
        link.loop.advanceTime(by: .milliseconds(1))
        #expect(try link.written() == ["heartbeat"])
        link.loop.advanceTime(by: .seconds(2))
        #expect(try link.written() == ["heartbeat"])
    }

    @Test("A gateway that answers no heartbeat for three intervals loses the link; one that answers keeps it")
    func silentGateway() throws {
        let link = try Link(DeviceLinkClientStateMachine(devices: .own(Self.hello("d1")), heartbeatEvery: .seconds(15), maximumBackoff: .seconds(8)))
        try link.send(.welcome(.init(heartbeatInterval: 1)))
        link.loop.advanceTime(by: .seconds(3))
        try link.send(.heartbeatAck(.init(sequence: 3)))
        link.loop.advanceTime(by: .seconds(3))
        #expect(link.channel.isActive, "three heartbeats sent since the last answer")
        link.loop.advanceTime(by: .seconds(1))
        #expect(!link.channel.isActive)
        let ending = Mutex<Result<Void, any Error>?>(nil)
        link.handler.ended.whenComplete { result in ending.withLock { $0 = result } }
        guard case .failure(let error)? = ending.withLock({ $0 }) else {
            Issue.record("the link did not end with a failure")
            return
        }
        #expect(error is DeviceError, "\(error)")
    }

    @Test("On a shared link a device that restarts ends its session alone, tells the gateway, and says hello again at once")
    func sharedRestart() throws {
        let machine = DeviceLinkClientStateMachine(devices: .shared(host: "process-1", hellos: [Self.hello("d1"), Self.hello("d2")]),
                                                   heartbeatEvery: .seconds(15), maximumBackoff: .seconds(8))
        let link = try Link(machine, peer: Peer(restarting: ["d2"]))
        #expect(try link.written() == ["link", "hello(d1)", "hello(d2)"])
        try link.send(.welcome(.init(heartbeatInterval: 15)))
        try link.send(.welcome(.init(heartbeatInterval: 15)), deviceID: "d2")
        let push = DeviceLinkMessage.Delivery(id: "P1", apnsID: "A-1", token: DeviceToken(String(repeating: "ab", count: 32))!,
                                              bundleID: "com.example.app", pushType: .alert, priority: 10, collapseID: nil, payload: "{}")
        try link.send(.push(push), deviceID: "d2")
        #expect(try link.written() == ["error:Restarted(d2)", "hello(d2)"])
        #expect(link.peer.delivered.withLock { $0 } == ["welcome(d2)", "push(d2)", "ended(d2):Restarted"])
        #expect(link.channel.isActive, "the link and d1's session stay")
    }
}
