import APNSimGateway
import APNSimRules

extension Sandbox {
    /// A sandbox that is up: where it listens and what its devices registered.
    public struct Running: Sendable {
        public let gateway: Gateway
        public let endpoints: Gateway.Endpoints
        /// `http://HOST:PORT` of the media server, `nil` when it is not running.
        public let mediaURL: String?
        /// The certificates folder (`ca.pem` is the CA providers trust).
        public let certs: String
        /// Devices that had not registered every app when the sandbox reported ready.
        public let unregistered: [String]

        /// `unregistered` for a message: the first ten by name, then how many more (a fleet's thousand stay one line).
        public var unregisteredNames: String {
            let named = unregistered.prefix(10).joined(separator: ", ")
            return unregistered.count > 10 ? "\(named) and \(unregistered.count - 10) more" : named
        }

        /// The provider API's port for each environment.
        public var providerPorts: [APNsEnvironment: Int] { endpoints.providerPorts }
        /// The channel management API's port for each environment.
        public var managementPorts: [APNsEnvironment: Int] { endpoints.managementPorts }

        /// `http://HOST:PORT` of the control API (its routes are under `/v1`).
        public var controlURL: String { "http://\(gateway.configuration.controlHost):\(endpoints.controlPort)" }

        /// The token the gateway gave `app` on `device`, once it registered.
        public func token(device: String, app: String) -> DeviceToken? {
            gateway.deviceStatus.first { $0.descriptor.id == device }?.tokens.first { $0.bundleID == app }?.token
        }
    }
}
