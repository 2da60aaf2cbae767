import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimRuntime
import Foundation

extension Sandbox {
    /// What a sandbox runs: a world, the certificates its TLS uses, and where everything listens.
    public struct Configuration: Sendable {
        /// Teams, keys, apps, tokens, and the devices to start (`devices:` of a world file).
        public var world: World
        /// The folder `Certs/generate.sh` wrote: the gateway's and devices' certificates and the CA.
        public var certs: String
        /// The gateway's own settings; its TLS files come from ``certs``.
        public var gateway: GatewayConfiguration
        /// The media server, `nil` for none.
        public var media: Media?
        /// Where the world's devices run.
        public var devices: Devices = .inProcess
        /// The devices' data (installation IDs, so tokens stay the same across runs; downloaded attachments), one
        /// folder per device under it; `nil`: a fresh temporary folder, removed when the sandbox stops.
        public var dataDirectory: String?
        /// How long the sandbox waits for its devices to register before it reports ready anyway: long enough for a
        /// Swift extension's first build on a busy machine (it returns as soon as they have).
        public var registrationTimeout: Duration = .seconds(120)
        /// How long one attempt of a device to reach the gateway may take before it backs off and tries again; `nil`:
        /// the device's own default (`DeviceHostConfiguration.connectTimeout`).
        public var deviceConnectTimeout: Duration?
        /// How many links the devices of one process share (docs/device-link.md, "Shared links"); 0: a link per device,
        /// as a phone has. `nil`: ``defaultDeviceLinks``, for in-process devices and device processes alike.
        public var deviceLinks: Int?
        /// The links a process's devices share when ``deviceLinks`` says nothing: `APNSIM_DEVICE_LINKS` when it is a
        /// number from 0, as for `apnsim device`; else a fleet's default (`DeviceFleet.links`, 4).
        public static let defaultDeviceLinks = ProcessInfo.processInfo.environment["APNSIM_DEVICE_LINKS"].flatMap { Int($0) }
            .flatMap { $0 >= 0 ? $0 : nil } ?? DeviceFleet().links
        /// Runs the gateway and the in-process devices on this clock, which `POST /v1/clock` moves ahead.
        public var virtualClock: VirtualClock? {
            didSet {
                gateway.virtualClock = virtualClock
                gateway.clock = virtualClock.map { .virtual($0) } ?? .system
            }
        }

        public init(world: World, certs: String) {
            self.world = world
            self.certs = certs
            self.gateway = GatewayConfiguration(tls: .certsDirectory(certs))
        }

        /// For a world that tests run in: the gateway's timeouts that only guard against a slow peer
        /// (`GatewayConfiguration.waitForSlowPeers(upTo:)`) and its devices' connect become `limit`.
        public mutating func waitForSlowPeers(upTo limit: Duration) {
            gateway.waitForSlowPeers(upTo: limit)
            deviceConnectTimeout = limit
        }

        /// Every listener on a port the system picks, so sandboxes run side by side.
        public mutating func useEphemeralPorts() {
            gateway.ports = gateway.ports.mapValues { _ in 0 }
            gateway.managementPorts = gateway.managementPorts.mapValues { _ in 0 }
            gateway.controlPort = 0
            gateway.devicePort = 0
            media?.port = 0
        }
    }

    /// The media server's folder and address.
    public struct Media: Sendable, Hashable {
        public var directory: String
        public var host = "127.0.0.1"
        public var port = 8199

        public init(directory: String, host: String = "127.0.0.1", port: Int = 8199) {
            self.directory = directory
            self.host = host
            self.port = port
        }
    }

    /// Where the world's devices run.
    public enum Devices: Sendable, Hashable {
        /// Each device a `DeviceHost` in this process, linked over the real device link and TLS.
        case inProcess
        /// Each device its own `apnsim device` process started from this executable (as `apnsim up` does), with
        /// `arguments` added to each (its logging).
        case processes(executable: String, arguments: [String] = [])
    }
}
