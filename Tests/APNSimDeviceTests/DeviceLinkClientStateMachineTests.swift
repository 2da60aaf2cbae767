@testable import APNSimDevice
@testable import APNSimDeviceLink
import APNSimRules
import Foundation
import NIOCore
import Testing

/// The device's end of the device link as a value: messages in, actions out, no channel. The handler carrying it out is
/// in `DeviceLinkClientHandlerTests`.
@Suite("Device link state machine (device)")
struct DeviceLinkClientStateMachineTests {
    typealias Machine = DeviceLinkClientStateMachine

    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func hello(_ id: String, host: String? = nil) -> DeviceLinkMessage.Hello {
        .init(device: .init(id: id, name: id), host: host)
    }

    static func own() -> Machine {
        Machine(devices: .own(hello("d1")), heartbeatEvery: .seconds(15), maximumBackoff: .seconds(1))
    }

    static func shared() -> Machine {
        Machine(devices: .shared(host: "process-1", hellos: [hello("d1", host: "process-1"), hello("d2", host: "process-1")]),
                heartbeatEvery: .seconds(15), maximumBackoff: .seconds(1))
    }

    static let delivery = DeviceLinkMessage.Delivery(id: "P1", apnsID: "A-1", token: token, bundleID: "com.example.app", pushType: .alert,
                                                     priority: 10, collapseID: nil, payload: #"{"aps":{"alert":"Hi"}}"#)

    /// One message of each case the gateway sends; ``everyCaseOnce()`` fails until a case added has one here.
    static let toDevice: [DeviceLinkMessage.ToDevice] = [
        .welcome(.init(heartbeatInterval: 10)), .registered(.init(bundleID: "com.example.app", environment: .development, token: token)),
        .push(delivery), .carry(.init(pushes: [.init(device: "d1", body: delivery)])),
        .install(.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: now)),
        .uninstall(.init(bundleID: "com.example.app")), .foreground(.init(bundleID: "com.example.app", options: ["banner"])),
        .restart(.init()), .focus(.init(focus: nil)), .summary(.init(summary: nil)), .deliverSummary(.init(id: "S1")),
        .startActivity(.init(activity: LiveActivity(id: "act-1", bundleID: "com.example.app", attributesType: "A", attributes: [:],
                                                     contentState: [:], startedAt: now))),
        .endActivity(.init(id: "act-1", bundleID: "com.example.app", contentState: nil, dismissalDate: nil, at: now)),
        .interact(.init(id: "I1", apnsID: "A-1", action: "tap", at: now)),
        .heartbeat(.init(sequence: 1)), .heartbeatAck(.init(sequence: 1)), .error(.init(reason: "LinkDropped", explanation: "say hello again")),
    ]

    /// Whether `action` acts: not the link's end, not a message put aside.
    static func acts(_ action: Machine.Action) -> Bool {
        switch action {
        case .end, .misplaced: false
        case .deliver, .welcomed, .carry, .send, .alive, .endSession: true
        }
    }

    @Test("Every message the gateway sends is handled: on a device's own link, and on a shared link naming its device or the link")
    func everyCaseOnce() {
        #expect(Set(Self.toDevice.map(\.kind)) == Set(DeviceLinkMessage.ToDeviceKind.allCases))
        for message in Self.toDevice {
            var shared = Self.shared()
            let named = shared.received(message, deviceID: message.isAboutLink ? nil : "d1")
            #expect(Self.acts(named), "\(message.type) on a shared link: \(named)")
            // On a device's own link an error is the link's end, as it should be: the gateway ends the link with it.
            if case .error = message { continue }
            var own = Self.own()
            let action = own.received(message, deviceID: nil)
            #expect(Self.acts(action), "\(message.type) on a device's own link: \(action)")
        }
    }

    static func decoded(_ frames: [UInt8]) throws -> [DeviceLinkMessage.Written] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(frames)
        var messages: [DeviceLinkMessage.Written] = []
        while let body = try reader.nextBody() { messages.append(try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(body))) }
        return messages
    }

    @Test("The link opens with the device's hello, or the process's link and each device's hello naming it")
    func opening() throws {
        var reader = DeviceLinkFraming.Reader()
        reader.append(Self.shared().opening)
        var opened: [String] = []
        while let body = try reader.nextBody() {
            let message = try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(body))
            opened.append("\(message.type)\(try DeviceLinkFraming.deviceID(in: body).map { "(\($0))" } ?? "")")
        }
        #expect(opened == ["link", "hello(d1)", "hello(d2)"])
        #expect(try Self.decoded(Self.own().opening) == [.hello(Self.hello("d1"))])
    }

    @Test("The device beats at the interval the gateway's welcome gives, its own until then")
    func heartbeatInterval() {
        var machine = Self.own()
        #expect(machine.heartbeatEvery == .seconds(15))
        #expect(machine.received(.welcome(.init(heartbeatInterval: 2.5)), deviceID: nil)
                == .welcomed(.welcome(.init(heartbeatInterval: 2.5)), device: nil, heartbeatEvery: .milliseconds(2500)))
        #expect(machine.heartbeatEvery == .milliseconds(2500))
        var shared = Self.shared()
        #expect(shared.received(.welcome(.init(heartbeatInterval: 4)), deviceID: nil) == .welcomed(nil, device: nil, heartbeatEvery: .seconds(4)),
                "a shared link's own welcome is no device's")
    }

    @Test("Heartbeats count up; three the gateway leaves unanswered in a row end the link, and anything it says counts as an answer")
    func silentGateway() {
        var machine = Self.own()
        #expect(machine.heartbeatDue() == .send(.heartbeat(.init(sequence: 1)), naming: nil))
        #expect(machine.heartbeatDue() == .send(.heartbeat(.init(sequence: 2)), naming: nil))
        #expect(machine.received(.heartbeatAck(.init(sequence: 2)), deviceID: nil) == .alive)
        for sequence in 3...5 { #expect(machine.heartbeatDue() == .send(.heartbeat(.init(sequence: sequence)), naming: nil)) }
        #expect(machine.heartbeatDue() == .end("the gateway answered none of the last 3 heartbeats (45.0 s); linking again"))
        _ = machine.received(.push(Self.delivery), deviceID: nil)
        #expect(machine.heartbeatDue() == .send(.heartbeat(.init(sequence: 6)), naming: nil), "a push is an answer too")
        #expect(machine.received(.heartbeat(.init(sequence: 9)), deviceID: nil) == .send(.heartbeatAck(.init(sequence: 9)), naming: nil))
    }

    @Test("On a shared link a device whose session the gateway ends says hello again after a pause that doubles to a limit; a welcome starts it over")
    func sessionBackoff() {
        var machine = Self.shared()
        let ended = DeviceLinkMessage.ToDevice.error(.init(reason: "LinkDropped", explanation: "say hello again"))
        let pauses = (0..<5).map { _ -> TimeAmount? in
            guard case .endSession("d1", "LinkDropped", nil, let pause) = machine.received(ended, deviceID: "d1") else { return nil }
            return pause
        }
        #expect(pauses == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1)])
        _ = machine.received(.welcome(.init(heartbeatInterval: 15)), deviceID: "d1")
        guard case .endSession(_, _, _, let pause) = machine.received(ended, deviceID: "d1") else {
            Issue.record("the gateway's error did not end d1's session")
            return
        }
        #expect(pause == .milliseconds(100))
        guard case .endSession(_, _, _, let other) = machine.received(ended, deviceID: "d2") else {
            Issue.record("the gateway's error did not end d2's session")
            return
        }
        #expect(other == .milliseconds(100), "each device has its own pause")
    }

    @Test("A device that ends its own session tells the gateway why, and says hello again: at once after a restart")
    func deviceEndsSession() {
        var machine = Self.shared()
        #expect(machine.sessionEndedByDevice("d2", restarted: true, why: "the device restarted")
                == .endSession(device: "d2", reason: "Restarted", telling: .init(reason: "Restarted", explanation: "the device restarted"),
                               helloAfter: .zero))
        guard case .endSession("d2", "Dropped", let told?, let pause) = machine.sessionEndedByDevice("d2", restarted: false, why: "a fault") else {
            Issue.record("a drop did not end the session")
            return
        }
        #expect(told.reason == "Dropped" && pause == .milliseconds(100))
    }

    @Test("A message for a device not on the link, or for one device naming none, is put aside with a sentence; an error naming none ends the link")
    func misplaced() throws {
        var machine = Self.shared()
        #expect(machine.received(.push(Self.delivery), deviceID: "d9") == .misplaced("a push message on this link for device d9, which is not on it"))
        #expect(machine.received(.push(Self.delivery), deviceID: nil) == .misplaced("a push message for one device on a shared link names none"))
        #expect(machine.received(.error(.init(reason: "Shutdown", explanation: "the gateway is stopping")), deviceID: nil)
                == .end("the gateway ended the link: Shutdown: the gateway is stopping"))
        #expect(try Self.decoded(machine.hello("d2")) == [.hello(Self.hello("d2", host: "process-1"))])
        #expect(machine.hello("d9").isEmpty)
    }
}
