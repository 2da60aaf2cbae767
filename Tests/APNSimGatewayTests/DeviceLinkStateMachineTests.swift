import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import Foundation
import Testing

/// The gateway's end of the device link as a value: messages in, actions out, no channel. What the handler does with
/// each action is in `DeviceLinkHandlerTests`.
@Suite("Device link state machine (gateway)")
struct DeviceLinkStateMachineTests {
    /// A session as the tests see it: the device, the process its link names, its name in messages on a shared link.
    struct Session: Equatable {
        var device: String
        var host: String?
        var address: String?
    }

    typealias Machine = DeviceLinkStateMachine<Session>

    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let receipt = ReceivedReceipt(DeviceLinkMessage.Receipt(id: "P1", outcome: .displayed, content: NotificationContent(body: "B")))

    static func hello(_ id: String, host: String? = nil, version: Int = DeviceLinkMessage.protocolVersion) -> DeviceLinkInbound {
        .hello(.init(version: version, device: .init(id: id, name: id), host: host))
    }

    /// One message of each case a device sends; ``everyCaseOnce()`` fails until a case added has one here.
    static let fromDevice: [DeviceLinkInbound] = [
        hello("d1"), .link(.init(host: "process-1")), .register(.init(bundleID: "com.example.app", environment: .development, installation: "I1")),
        .unregister(.init(token: token)), .installRefused(.init(bundleID: "com.example.app", kind: .extensionPrefix, message: "no")),
        .ack(.init(id: "P1")), .receipt(receipt), .receipts([CarriedReceivedReceipt(device: "d1", receipt: receipt)]),
        .attachmentCopy(.init(sha256: String(repeating: "a", count: 64), uti: nil, size: 3, offset: 0, data: "AAEC")),
        .interacted(.init(id: "I1", refusal: "nothing shown")),
        .summarized(SummaryDelivery(id: "S1", device: "d1", scheduledFor: nil, at: Date(timeIntervalSince1970: 0), notifications: [], detail: "empty")),
        .activities(.init(bundleID: "com.example.app", activities: [])),
        .heartbeat(.init(sequence: 1)), .heartbeatAck(.init(sequence: 1)), .error(.init(reason: "Restarting", explanation: "the device restarts")),
    ]

    static func open(_ opening: Machine.Opening) -> Session {
        Session(device: opening.hello.device.id, host: opening.host, address: opening.address)
    }

    /// A machine whose link is `d1`'s own (named process `process-1`).
    static func ownLink() -> Machine {
        var machine = Machine(heartbeatInterval: 15)
        _ = machine.received(hello("d1", host: "process-1"), deviceID: nil, open: open)
        return machine
    }

    /// A machine whose link `process-1`'s devices share, with `devices` joined.
    static func sharedLink(_ devices: String...) -> Machine {
        var machine = Machine(heartbeatInterval: 15)
        _ = machine.received(.link(.init(host: "process-1")), deviceID: nil, open: open)
        for device in devices { _ = machine.received(hello(device), deviceID: device, open: open) }
        return machine
    }

    /// Whether `action` acts: not nothing, not an error to the device, not the link's end for a wrong message.
    static func acts(_ action: Machine.Action) -> Bool {
        switch action {
        case .none, .fail, .refuse: false
        case .start, .welcomeLink, .forward, .takeReceipts, .answerHeartbeat, .alive, .endSession, .peerClosed: true
        }
    }

    @Test("Every message a device sends is handled where it belongs: hello and link open a link, the rest act in a session")
    func everyCaseOnce() {
        #expect(Set(Self.fromDevice.map(\.kind)) == Set(DeviceLinkMessage.FromDeviceKind.allCases))
        for message in Self.fromDevice {
            var machine: Machine
            switch message {
            case .hello, .link: machine = Machine(heartbeatInterval: 15)
            default: machine = Self.ownLink()
            }
            let action = machine.received(message, deviceID: nil, open: Self.open)
            #expect(Self.acts(action), "\(message.type) on \(machine.phase): \(action)")
            // On a shared link, each as its device's (hello joins it again), or about the link where it is; `link`
            // opens one.
            if case .link = message { continue }
            var shared = Self.sharedLink("d1")
            let named = shared.received(message, deviceID: message.isAboutLink ? nil : "d1", open: Self.open)
            #expect(Self.acts(named), "\(message.type) on a shared link: \(named)")
        }
    }

    @Test("A device's own link: hello starts its session with the process it names; what it says goes to the services")
    func ownLink() {
        var machine = Machine(heartbeatInterval: 15)
        let d1 = Session(device: "d1", host: "process-1", address: nil)
        #expect(machine.received(Self.hello("d1", host: "process-1"), deviceID: nil, open: Self.open) == .start(d1, replaced: nil))
        #expect(machine.received(.ack(.init(id: "P1")), deviceID: nil, open: Self.open) == .forward(.ack(.init(id: "P1")), from: d1))
        let carried = [CarriedReceivedReceipt(device: "d2", receipt: Self.receipt)]
        #expect(machine.received(.receipts(carried), deviceID: nil, open: Self.open) == .takeReceipts(carried, host: "process-1"))
        #expect(machine.received(.heartbeat(.init(sequence: 4)), deviceID: nil, open: Self.open) == .answerHeartbeat(.init(sequence: 4), in: d1))
        #expect(machine.received(Self.hello("d1"), deviceID: nil, open: Self.open)
                == .fail(.init(reason: "UnexpectedMessage", explanation: "a device says hello once, as its link's first message")))
        #expect(machine.received(.error(.init(reason: "Restarting", explanation: "")), deviceID: nil, open: Self.open)
                == .peerClosed(reason: "Restarting", session: d1))
        #expect(machine.closed() == [d1])
        #expect(machine.received(.ack(.init(id: "P2")), deviceID: nil, open: Self.open) == .none, "nothing after the close")
        #expect(machine.closed().isEmpty, "its sessions end once")
    }

    @Test("The first message must be hello or link, in the gateway's version", arguments: [
        (Self.fromDevice[5], "HelloFirst"), (Self.fromDevice[11], "HelloFirst"), (Self.hello("d1", version: 99), "UnsupportedVersion"),
        (DeviceLinkInbound.link(.init(version: 0, host: "p")), "UnsupportedVersion"),
    ])
    func badOpening(_ first: DeviceLinkInbound, reason: String) {
        var machine = Machine(heartbeatInterval: 15)
        guard case .fail(let error) = machine.received(first, deviceID: nil, open: Self.open) else {
            Issue.record("\(first.type) first was not refused")
            return
        }
        #expect(error.reason == reason)
        #expect(machine.sessions.isEmpty)
    }

    @Test("A shared link: each device joins by name; a bad hello or a message before hello is refused to that device alone")
    func sharedLink() {
        var machine = Self.sharedLink()
        let d1 = Session(device: "d1", host: "process-1", address: "d1")
        #expect(machine.received(Self.hello("d1"), deviceID: "d1", open: Self.open) == .start(d1, replaced: nil))
        guard case .refuse("d2", let bad) = machine.received(Self.hello("d9"), deviceID: "d2", open: Self.open) else {
            Issue.record("a hello naming another device was not refused")
            return
        }
        #expect(bad.reason == "BadHello")
        guard case .refuse("d3", let early) = machine.received(.ack(.init(id: "P1")), deviceID: "d3", open: Self.open) else {
            Issue.record("an ack before hello was not refused")
            return
        }
        #expect(early.reason == "HelloFirst")
        guard case .fail(let unnamed) = machine.received(.ack(.init(id: "P1")), deviceID: nil, open: Self.open) else {
            Issue.record("an ack naming no device was not refused")
            return
        }
        #expect(unnamed.reason == "NoDevice")
        #expect(machine.received(.heartbeat(.init(sequence: 2)), deviceID: nil, open: Self.open) == .answerHeartbeat(.init(sequence: 2), in: nil))
        #expect(machine.sessions == [d1])
    }

    @Test("On a shared link a device that says hello again replaces its session; its error or a fault ends it alone")
    func sharedSessionsEnd() {
        var machine = Self.sharedLink("d1", "d2")
        let d1 = Session(device: "d1", host: "process-1", address: "d1")
        let d2 = Session(device: "d2", host: "process-1", address: "d2")
        #expect(machine.received(Self.hello("d1"), deviceID: "d1", open: Self.open) == .start(d1, replaced: d1))
        #expect(machine.received(.error(.init(reason: "Restarted", explanation: "")), deviceID: "d1", open: Self.open)
                == .endSession(d1, telling: nil, reason: "Restarted"))
        guard case .endSession(d2, let told?, "LinkDropped") = machine.endSession("d2") else {
            Issue.record("a fault did not end d2's session")
            return
        }
        #expect(told.reason == "LinkDropped")
        #expect(machine.endSession("d2") == .none, "a session ends once")
        #expect(machine.sessions.isEmpty)
        guard case .shared("process-1", _) = machine.phase else {
            Issue.record("the link did not stay up: \(machine.phase)")
            return
        }
    }

    @Test("Silence for three heartbeat intervals, and shutdown, end the link saying why")
    func timeouts() {
        let machine = Self.ownLink()
        #expect(machine.readTimedOut() == .fail(.init(reason: "HeartbeatTimeout",
                                                      explanation: "nothing arrived for three heartbeat intervals (45.0 s); reconnect")))
        guard case .fail(let shutdown) = machine.quiesce() else {
            Issue.record("quiesce did not end the link")
            return
        }
        #expect(shutdown.reason == "Shutdown")
    }
}
