import APNSimDeviceLink
import APNSimRules
import Foundation
import Logging
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
                let link = SharedDeviceLink(group: self, number: index, devices: devices, configuration: first.configuration, logger: logger)
                tasks.addTask { await link.keepLinked(sslContext: context) }
            }
        }
        for host in members { await host.shutDownExtensions() }
    }
}

/// One link that some of a process's devices share (docs/device-link.md, "Shared links"): it opens with `link` and
/// each device's `hello`; every message about a device names it, and goes to that device's host. A device's session
/// ends alone (the gateway's `error` naming it, a drop before acknowledging, a restart) and it says hello again, while
/// the link and the other devices' sessions stay (``DeviceLinkClientStateMachine`` decides); when the link ends, every
/// session on it does, and it links again with back-off.
final class SharedDeviceLink: Sendable {
    private let group: DeviceHostGroup
    /// Which of the group's links it is: where among the gateway replicas its attempts start (its home replica).
    private let number: Int
    private let devices: [String: DeviceHost]
    private let inOrder: [DeviceHost]
    private let configuration: DeviceHostConfiguration
    private let logger: Logger

    init(group: DeviceHostGroup, number: Int, devices: [DeviceHost], configuration: DeviceHostConfiguration, logger: Logger) {
        self.group = group
        self.number = number
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
        let hellos = inOrder.map { DeviceLinkMessage.Hello(device: $0.configuration.device, host: group.id) }
        let machine = DeviceLinkClientStateMachine(devices: .shared(host: group.id, hellos: hellos),
                                                   heartbeatEvery: TimeAmount(configuration.heartbeatInterval),
                                                   maximumBackoff: TimeAmount(configuration.maximumBackoff))
        try await DeviceLinkConnection.run(configuration, home: .shared(group: group.id, number: number), sslContext: sslContext, machine: machine,
                                           logger: logger, devices: devicesNamed,
                                           peer: { [self] outbox in Peer(link: self, outbox: outbox) },
                                           ended: { outbox in
            for device in inOrder { device.unlink(DeviceRoute(outbox: outbox, deviceID: device.configuration.device.id)) }
        })
    }

    /// The link's devices, answering on one of its connections.
    private struct Peer: DeviceLinkPeer {
        let link: SharedDeviceLink
        let outbox: DeviceLinkOutbox

        func deliver(_ message: DeviceLinkMessage.ToDevice, to device: String?) throws -> [UInt8] {
            // The machine names only devices on the link, and every message for one names it.
            guard let device, let host = link.devices[device] else { return [] }
            let route = DeviceRoute(outbox: outbox, deviceID: device)
            do {
                return route.frames(try host.receive(message, on: route))
            } catch {
                host.unlink(route)  // the device ends its own session; the machine tells the gateway
                throw error
            }
        }

        func carry(_ carry: DeviceLinkMessage.Carry) {
            // Applied on the process's event loops in turn, as on a device's own link (DeviceHost+Link.swift).
            let (group, logger, outbox) = (link.group, link.logger, outbox)
            MultiThreadedEventLoopGroup.singleton.next().execute {
                let answers = DeviceHost.carried(carry, carrier: nil, group: group, logger: logger)
                if !answers.isEmpty { outbox.write(DeviceRoute(outbox: outbox).frames(answers)) }
            }
        }

        func sessionEnded(_ device: String, reason: String) {
            link.devices[device]?.unlink(DeviceRoute(outbox: outbox, deviceID: device))
            link.logger.info("device session ended", metadata: ["device": "\(device)", "reason": "\(reason)"])
        }

        func misplaced(_ sentence: String) {
            link.logger.warning("\(sentence)")
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
