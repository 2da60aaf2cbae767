import APNSimRules
import APNSimStore
import Foundation
import Hummingbird

/// What orchestrators and people ask a running gateway about itself.
///
/// `GET /healthz` and `GET /readyz` are the probes of Kubernetes and compose health checks: answered without the
/// control token (``ControlAccess`` lets them through), since they say nothing but whether the gateway serves.
extension ControlAPI {
    /// The probes' paths, which need no control token.
    static let probePaths: Set<String> = ["/healthz", "/readyz"]

    func addProbeRoutes(to router: Router<BasicRequestContext>) {
        // Liveness: the process serves HTTP on its control port.
        router.get("healthz") { _, _ in try ControlJSON.response(["status": "ok"]) }
        router.get("readyz") { _, _ in try await self.readiness() }
    }

    /// `GET /readyz`: 200 once the gateway takes pushes as a test expects, else 503 with the reason. Ready means its
    /// listeners are bound (the control port serves only after they are), its store answers, it is not stopping,
    /// and the devices it was told to wait for (``readyDevices``: the world's devices `apnsim up` starts) are linked.
    /// A gateway alone waits for no device: devices in other containers start once it is ready.
    func readiness() async throws -> Response {
        struct Readiness: Encodable {
            var status: String
            var reason: String?
            var devicesLinked: Int
            var devicesAwaited: Int
        }
        func answer(_ reason: String?, linked: Int = 0) throws -> Response {
            try ControlJSON.response(Readiness(status: reason == nil ? "ready" : "not ready", reason: reason, devicesLinked: linked,
                                               devicesAwaited: readyDevices.flatMap(\.deviceIDs).count),
                                     status: reason == nil ? .ok : .serviceUnavailable)
        }
        if stopping.isSet { return try answer("the gateway is stopping") }
        if let problem = store.health?.problem { return try answer(problem) }
        do {
            _ = try await store.sendCount()
        } catch {
            return try answer("the store does not answer: \(error)")
        }
        let awaited = readyDevices.flatMap(\.deviceIDs).count
        let waiting = DeviceDirectory.unregistered(readyDevices, in: devices.devices)
        guard waiting.isEmpty else {
            return try answer("\(waiting.count) of the \(awaited) devices it starts have not linked and registered their apps yet: "
                              + waiting.joined(separator: ", "), linked: awaited - waiting.count)
        }
        return try answer(nil, linked: awaited)
    }

    /// `GET /v1/health`: the ports and the record's counts, for people and scripts that hold the control token.
    func health() async throws -> Response {
        struct Health: Encodable {
            var status = "ok"
            var providerPorts: [String: Int]
            /// The channel management API's ports (broadcast channels).
            var managementPorts: [String: Int]
            var sends: Int
            var deliveries: Int
            /// Deliveries with an outcome (displayed, background, … or dropped).
            var completedDeliveries: Int
            /// Records dropped, oldest first, to keep within the gateway's record limits (`--max-sends` and friends).
            var droppedSends: Int
            var droppedDeliveries: Int
        }
        try await recorder.flush()
        try await deliveries.flush()
        let ports = Dictionary(uniqueKeysWithValues: providerPorts.map { ($0.key.rawValue, $0.value) })
        let counts = try await store.deliveryCounts()
        let management = Dictionary(uniqueKeysWithValues: managementPorts.map { ($0.key.rawValue, $0.value) })
        return try ControlJSON.response(Health(providerPorts: ports, managementPorts: management, sends: try await store.sendCount(), deliveries: counts.total,
                                               completedDeliveries: counts.completed, droppedSends: recorder.dropped,
                                               droppedDeliveries: deliveries.dropped))
    }

}
