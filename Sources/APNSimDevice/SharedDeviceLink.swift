import APNSimDeviceLink
import APNSimRules
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

extension DeviceHostGroup {
    /// Keeps the group's shared links up until the task is cancelled (``sharedLinks`` of them, the devices dealt out
    /// among them in turn), and runs every device's jobs meanwhile; the devices' extension processes end with it.
    /// - Parameter sslContext: the device link's TLS context; `nil` makes one from the first device's configuration.
    public func run(sslContext: NIOSSLContext? = nil, logger: Logger = Logger(label: "apnsim.device")) async throws {
        let members = self.members
        guard let first = members.first, let jobs = sharedJobs else { return }
        let context = try sslContext ?? first.sharedTLSContext ?? DeviceHost.makeTLSContext(first.configuration.tls)
        let count = min(sharedLinks, members.count)
        await withDiscardingTaskGroup { tasks in
            tasks.addTask { await jobs.run() }
            for index in 0..<count {
                let devices = stride(from: index, to: members.count, by: count).map { members[$0] }
                let link = SharedDeviceLink(group: self, devices: devices, configuration: first.configuration, logger: logger)
                tasks.addTask { await link.keepLinked(sslContext: context) }
            }
        }
        for host in members { await host.shutDownExtensions() }
    }
}

/// One link that some of a process's devices share (docs/device-link.md, "Shared links"): it opens with `link` and
/// each device's `hello`; every message about a device names it, and goes to that device's host. A device's session
/// ends alone (the gateway's `error` naming it, a drop before acknowledging, a restart) and it says hello again, while
/// the link and the other devices' sessions stay; when the link ends, every session on it does, and it links again
/// with back-off.
final class SharedDeviceLink: Sendable {
    private let group: DeviceHostGroup
    private let devices: [String: DeviceHost]
    private let inOrder: [DeviceHost]
    private let configuration: DeviceHostConfiguration
    private let logger: Logger
    /// Each device's pause before it says hello again after its session ended, doubling while it keeps ending.
    private let backoffs = NIOLockedValueBox<[String: TimeAmount]>([:])

    init(group: DeviceHostGroup, devices: [DeviceHost], configuration: DeviceHostConfiguration, logger: Logger) {
        self.group = group
        self.inOrder = devices
        self.devices = Dictionary(devices.map { ($0.configuration.device.id, $0) }, uniquingKeysWith: { $1 })
        self.configuration = configuration
        self.logger = logger
    }

    /// Links, and links again with back-off whenever the link ends, until the task is cancelled.
    func keepLinked(sslContext: NIOSSLContext) async {
        await DeviceLinkConnection.keep(maximumBackoff: configuration.maximumBackoff, logger: logger, devices: devicesNamed) {
            try await runLink(sslContext: sslContext)
        }
    }

    /// The devices on the link, for its log lines: the one, or the first and how many more.
    private var devicesNamed: String {
        let first = inOrder.first?.configuration.device.id ?? ""
        return inOrder.count == 1 ? first : "\(first) and \(inOrder.count - 1) more"
    }

    /// One shared link, until the gateway closes it (returns), it breaks (throws), or the task is cancelled.
    private func runLink(sslContext: NIOSSLContext) async throws {
        let opening = DeviceLinkFraming.frame(.link(.init(host: group.id))) + inOrder.flatMap { hello($0) }
        try await DeviceLinkConnection.run(configuration, sslContext: sslContext, opening: opening, logger: logger, devices: devicesNamed,
                                           respond: { outbox in { [self] deviceID, message in try receive(message, deviceID: deviceID, on: outbox) } },
                                           ended: { outbox in
            for device in inOrder { device.unlink(DeviceRoute(outbox: outbox, deviceID: device.configuration.device.id)) }
        })
    }

    private func hello(_ device: DeviceHost) -> [UInt8] {
        DeviceLinkFraming.frame(.hello(.init(device: device.configuration.device, host: group.id)), deviceID: device.configuration.device.id)
    }

    /// The answer to one message on the link, as frames; throwing ends the link.
    private func receive(_ message: DeviceLinkMessage.ToDevice, deviceID: String?, on outbox: DeviceLinkOutbox) throws -> [UInt8] {
        guard let deviceID else {
            switch message {
            case .carry(let carry):
                // Applied on the process's event loops in turn, as on a device's own link (``DeviceHost/receive(_:on:)``).
                let (group, logger) = (group, logger)
                MultiThreadedEventLoopGroup.singleton.next().execute {
                    let answers = DeviceHost.carried(carry, carrier: nil, group: group, logger: logger)
                    if !answers.isEmpty { outbox.write(DeviceRoute(outbox: outbox).frames(answers)) }
                }
                return []
            case .heartbeat(let beat):
                return DeviceLinkFraming.frame(DeviceLinkMessage.Written.heartbeatAck(beat))
            case .welcome, .heartbeatAck, .error:
                // The link is accepted; it is alive. An error naming no device never gets here: the link's handler ends
                // the link at it (DeviceLinkClientHandler), and the link's end is what reconnects its devices.
                return []
            case .registered, .push, .install, .uninstall, .foreground, .restart, .focus, .summary, .deliverSummary, .startActivity,
                 .endActivity, .interact:
                logger.warning("a message for one device on a shared link names none", metadata: ["type": "\(message.type)"])
                return []
            }
        }
        guard let device = devices[deviceID] else {
            logger.warning("a message on a shared link for a device not on it", metadata: ["device": "\(deviceID)", "type": "\(message.type)"])
            return []
        }
        let route = DeviceRoute(outbox: outbox, deviceID: deviceID)
        if case .error(let error) = message {
            // The gateway ended the device's session alone; it says hello again after a pause.
            device.unlink(route)
            logger.info("device session ended by the gateway", metadata: ["device": "\(deviceID)", "reason": "\(error.reason)"])
            helloAgain(device, on: outbox.channel, after: nextBackoff(deviceID))
            return []
        }
        if case .welcome = message { backoffs.withLockedValue { $0[deviceID] = nil } }
        do {
            return route.frames(try device.receive(message, on: route))
        } catch {
            // The device ends its own session (a restart, a drop before acknowledging), and says hello again.
            device.unlink(route)
            let restarted = error is DeviceRestarted
            helloAgain(device, on: outbox.channel, after: restarted ? .zero : nextBackoff(deviceID))
            return route.frames([.error(.init(reason: restarted ? "Restarted" : "Dropped", explanation: "\(error)"))])
        }
    }

    private func nextBackoff(_ deviceID: String) -> TimeAmount {
        backoffs.withLockedValue { backoffs in
            let pause = backoffs[deviceID] ?? .milliseconds(100)
            backoffs[deviceID] = min(pause * 2, TimeAmount(configuration.maximumBackoff))
            return pause
        }
    }

    /// Says `device`'s hello on `channel` again after `pause`, if the link is still up then.
    private func helloAgain(_ device: DeviceHost, on channel: any Channel, after pause: TimeAmount) {
        let frame = hello(device)
        channel.eventLoop.scheduleTask(in: pause) {
            guard channel.isActive else { return }
            channel.writeAndFlush(ByteBuffer(bytes: frame), promise: nil)
        }
    }
}

extension DeviceHostGroup {
    /// Runs `hosts` until the task is cancelled: those of a group that shares links over its links (``run(sslContext:logger:)``),
    /// each other one on its own link (``DeviceHost/run()``).
    public static func run(_ hosts: [DeviceHost], logger: Logger = Logger(label: "apnsim.device")) async throws {
        let groups = Dictionary(hosts.compactMap { $0.configuration.group }.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first })
        defer { for group in groups.values { group.data?.flush() } }  // a fleet's data, written as the devices stop
        try await withThrowingDiscardingTaskGroup { tasks in
            for host in hosts where (host.configuration.group?.sharedLinks ?? 0) == 0 {
                tasks.addTask { try await host.run() }
            }
            for group in groups.values where group.sharedLinks > 0 { tasks.addTask { try await group.run(logger: logger) } }
        }
    }
}
