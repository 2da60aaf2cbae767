import APNSimDeviceLink
import APNSimRules
import NIOCore

/// Everything the device's end of one device link decides, as one value in the style of the gateway's
/// `DeviceLinkStateMachine`: it takes what happened (a message and the device it names, the heartbeat timer, a device
/// ending its own session) and returns what to do. It does no I/O; ``DeviceLinkClientHandler`` carries out its actions
/// and the link's devices (``DeviceLinkPeer``) answer what is theirs, and tests drive it with plain values
/// (`DeviceLinkClientStateMachineTests`).
///
/// The link is one device's (it opens with the device's `hello`) or shared by several devices of one process (it opens
/// with `link` and each device's `hello`; docs/device-link.md). Each device's session on a shared link ends alone, and
/// the device says hello again after a pause that doubles while its sessions keep ending. The device beats at the
/// interval the gateway's `welcome` gives, its own until then, and ends the link when the gateway has answered none of
/// three heartbeats in a row. Nothing here assumes the device has one gateway: each link is a machine of its own.
struct DeviceLinkClientStateMachine {
    /// The devices the link serves.
    enum Devices: Equatable {
        /// One device's own link.
        case own(DeviceLinkMessage.Hello)
        /// A link the devices of process `host` share, in the order they say hello.
        case shared(host: String, hellos: [DeviceLinkMessage.Hello])
    }

    enum Action: Equatable {
        /// Hand `message` to the device it is for: `device` on a shared link, the link's own device when `nil`.
        case deliver(DeviceLinkMessage.ToDevice, device: String?)
        /// The link, or one device's session on it, is accepted: deliver `welcome` to its device as `deliver` does
        /// (`nil` for a shared link's own welcome, which is no device's), and beat every `heartbeatEvery` from now on.
        case welcomed(DeviceLinkMessage.ToDevice?, device: String?, heartbeatEvery: TimeAmount)
        /// Pushes for several of the process's devices.
        case carry(DeviceLinkMessage.Carry)
        /// Write `message` on the link, naming `device` on a shared link.
        case send(DeviceLinkMessage.Written, naming: String?)
        /// The gateway answered a heartbeat: it is there.
        case alive
        /// One device's session on a shared link ended (the gateway's error naming it, or the device's own end, which it
        /// tells the gateway with `telling`); the link stays up, and the device says hello again after `helloAfter`.
        case endSession(device: String, reason: String, telling: DeviceLinkMessage.LinkError?, helloAfter: TimeAmount)
        /// The link ends, with this sentence (the gateway ended it, or stopped answering).
        case end(String)
        /// A message this link has no device for; the sentence is logged, and the link goes on.
        case misplaced(String)
    }

    let devices: Devices
    /// Where each device's hello is in a shared link's ``Devices/shared(host:hellos:)``, by device ID: every message
    /// names its device, and finding it by a pass over the hellos made 62,500 devices on a link quadratic (58 % of a
    /// device process's CPU while a quarter of a million linked, `perf`).
    private let positions: [String: Int]
    /// The interval between heartbeats: the device's own until the gateway's `welcome` says its own.
    private(set) var heartbeatEvery: TimeAmount
    private let maximumBackoff: TimeAmount
    private var heartbeatSequence = 0
    /// Heartbeats sent since the gateway last said anything.
    private var unanswered = 0
    /// Each device's pause before it says hello again after its session on a shared link ended.
    private var backoffs: [String: TimeAmount] = [:]

    /// Heartbeats the gateway may leave unanswered in a row before the link is given up: as many intervals as the
    /// gateway waits for a silent device (docs/device-link.md).
    static let unansweredLimit = 3

    init(devices: Devices, heartbeatEvery: TimeAmount, maximumBackoff: TimeAmount) {
        self.devices = devices
        if case .shared(_, let hellos) = devices {
            positions = Dictionary(hellos.enumerated().map { ($1.device.id, $0) }, uniquingKeysWith: { first, _ in first })
        } else {
            positions = [:]
        }
        self.heartbeatEvery = heartbeatEvery
        self.maximumBackoff = maximumBackoff
    }

    /// The frames the link opens with: the device's hello, or the process's `link` and each device's hello.
    var opening: [UInt8] {
        switch devices {
        case .own(let hello): DeviceLinkFraming.frame(DeviceLinkMessage.Written.hello(hello))
        case .shared(let host, let hellos): DeviceLinkFraming.frame(.link(.init(host: host))) + hellos.flatMap(Self.helloFrame)
        }
    }

    /// Device `device`'s hello on a shared link, said again after its session ended.
    func hello(_ device: String) -> [UInt8] {
        guard case .shared(_, let hellos) = devices, let position = positions[device] else { return [] }
        return Self.helloFrame(hellos[position])
    }

    private static func helloFrame(_ hello: DeviceLinkMessage.Hello) -> [UInt8] {
        DeviceLinkFraming.frame(.hello(hello), deviceID: hello.device.id)
    }

    /// A message from the gateway, naming `deviceID` on a shared link.
    mutating func received(_ message: DeviceLinkMessage.ToDevice, deviceID: String?) -> Action {
        unanswered = 0  // anything from the gateway says it is there
        switch message {
        case .heartbeat(let beat):
            return .send(.heartbeatAck(beat), naming: nil)  // one per link, not per device
        case .heartbeatAck:
            return .alive
        case .carry(let carry):
            return .carry(carry)
        case .welcome(let welcome):
            if welcome.heartbeatInterval > 0 {
                heartbeatEvery = .nanoseconds(Int64(welcome.heartbeatInterval * 1e9))
            }
            switch (devices, deviceID) {
            case (.own, _):
                return .welcomed(message, device: nil, heartbeatEvery: heartbeatEvery)
            case (.shared, nil):
                return .welcomed(nil, device: nil, heartbeatEvery: heartbeatEvery)
            case (.shared, let deviceID?):
                guard isOnLink(deviceID) else { return misplaced(message, deviceID) }
                backoffs[deviceID] = nil
                return .welcomed(message, device: deviceID, heartbeatEvery: heartbeatEvery)
            }
        case .error(let error):
            guard case .shared = devices, let deviceID else {
                return .end("the gateway ended the link: \(error.reason): \(error.explanation)")
            }
            guard isOnLink(deviceID) else { return misplaced(message, deviceID) }
            // The gateway ended the device's session alone; it says hello again after a pause.
            return .endSession(device: deviceID, reason: error.reason, telling: nil, helloAfter: nextBackoff(deviceID))
        case .registered, .push, .install, .uninstall, .foreground, .restart, .focus, .summary, .deliverSummary, .startActivity,
             .endActivity, .interact:
            switch devices {
            case .own:
                return .deliver(message, device: nil)
            case .shared:
                guard let deviceID else { return .misplaced("a \(message.type) message for one device on a shared link names none") }
                guard isOnLink(deviceID) else { return misplaced(message, deviceID) }
                return .deliver(message, device: deviceID)
            }
        }
    }

    /// The device `device` ended its own session on a shared link (it restarted, or dropped the link before
    /// acknowledging a push, as a fault asked): the gateway is told, and it says hello again, at once after a restart.
    mutating func sessionEndedByDevice(_ device: String, restarted: Bool, why: String) -> Action {
        .endSession(device: device, reason: restarted ? "Restarted" : "Dropped",
                    telling: .init(reason: restarted ? "Restarted" : "Dropped", explanation: why),
                    helloAfter: restarted ? .zero : nextBackoff(device))
    }

    /// The heartbeat timer fired: the next heartbeat, or the link's end when the gateway answered none of the last few.
    mutating func heartbeatDue() -> Action {
        guard unanswered < Self.unansweredLimit else {
            return .end("the gateway answered none of the last \(Self.unansweredLimit) heartbeats "
                        + "(\(Double(heartbeatEvery.nanoseconds) / 1e9 * Double(Self.unansweredLimit)) s); linking again")
        }
        unanswered += 1
        heartbeatSequence += 1
        return .send(.heartbeat(.init(sequence: heartbeatSequence)), naming: nil)
    }

    private func isOnLink(_ device: String) -> Bool {
        switch devices {
        case .own(let hello): hello.device.id == device
        case .shared: positions[device] != nil
        }
    }

    private func misplaced(_ message: DeviceLinkMessage.ToDevice, _ device: String) -> Action {
        .misplaced("a \(message.type) message on this link for device \(device), which is not on it")
    }

    private mutating func nextBackoff(_ device: String) -> TimeAmount {
        let pause = backoffs[device] ?? .milliseconds(100)
        backoffs[device] = min(pause * 2, maximumBackoff)
        return pause
    }
}
