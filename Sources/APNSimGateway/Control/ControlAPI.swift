import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Hummingbird

/// The control API (`http://127.0.0.1:8197/v1`): read what the gateway recorded, read and change the world.
/// Every route is listed in docs/control-api.md.
struct ControlAPI: Sendable {
    /// The gateway's parts the API reads and changes (world, record, faults, devices, clock), and what it does to them.
    let actions: GatewayActions
    let store: any Store
    let providerPorts: [APNsEnvironment: Int]
    var managementPorts: [APNsEnvironment: Int] = [:]
    let requests: DeviceRequests
    let uninstallDelay: UninstallDelay
    /// How long an install waits for the device's answer without `?wait=`.
    var installWait: Duration = .seconds(120)
    let virtualClock: VirtualClock?
    /// Set as the gateway begins to shut down: event streams end.
    let stopping: StopSignal
    /// What else the control port serves (the inbox).
    let additions: [any ControlPortAddition]
    /// Names this run of the gateway in the event stream's hello, so a page that sees another run starts over.
    let run = UUID().uuidString
    /// The devices `GET /readyz` waits for (``GatewayConfiguration/readyDevices``).
    var readyDevices: [World.DeviceSpec] = []
    /// Set on a replica: requests about another replica's devices go to it (docs/cluster.md).
    var forwarding: ReplicaForwarding?

    var world: WorldRegistry { actions.world }
    var recorder: SendRecorder { actions.recorder }
    var faults: FaultInjector { actions.faults }
    var clock: WallClock { actions.clock }
    var devices: DeviceDirectory { actions.devices }
    var deliveries: DeliveryRecorder { actions.deliveries }

    func makeRouter(token: String?) -> Router<BasicRequestContext> {
        let router = Router()
        if let token { router.add(middleware: ControlAccess(token: token)) }
        router.add(middleware: ControlQuery.ParameterCheck())
        let methods = MethodCheck()
        router.add(middleware: methods)
        if let forwarding { router.add(middleware: forwarding) }
        addProbeRoutes(to: router)
        addDescriptionRoutes(to: router)
        addMetricsRoute(to: router)
        let v1 = router.group("v1")
        v1.get("health") { _, _ in try await self.health() }
        v1.get("sends") { request, _ in try await self.sends(request) }
        v1.post("reset") { _, _ in try await self.reset() }
        v1.get("faults") { _, _ in try ControlJSON.response(self.faults.pending(now: self.clock.now())) }
        v1.post("faults") { request, _ in try await self.addFaults(request) }
        v1.delete("faults") { _, _ in
            self.faults.clear()
            return try ControlJSON.response(["status": "cleared"])
        }
        v1.delete("faults/:id") { _, context in
            let id = context.parameters.get("id") ?? ""
            guard self.faults.remove(id: id) else { return ControlJSON.error("there is no fault \(id) in force", status: .notFound) }
            return try ControlJSON.response(["status": "removed"])
        }
        v1.get("events") { _, _ in self.events() }
        addClockRoutes(to: v1)
        addWorldRoutes(to: v1)
        addInteractionRoutes(to: v1)
        addConnectionRoutes(to: v1)
        addSummaryRoutes(to: v1)
        addDeviceRoutes(to: v1)
        addActivityRoutes(to: v1)
        for addition in additions { addition.addRoutes(to: router, gateway: GatewayAccess(api: self)) }
        methods.set(router.routes)
        return router
    }

    private func sends(_ request: Request) async throws -> Response {
        let filter: SendFilter
        do {
            filter = try ControlQuery.sendFilter(request.queryValues)
        } catch {
            return ControlJSON.error(error.description)
        }
        try await recorder.flush()
        return try ControlJSON.response(try await store.sends(matching: filter))
    }

    /// `POST /v1/faults`: one fault or a list of them (docs/faults.md). Faults that act at once on open
    /// connections or device links do so before the answer, which lists the faults added with their IDs.
    private func addFaults(_ request: Request) async throws -> Response {
        let added: [Fault]
        do {
            let body = Data(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            let faults = body.first(where: { ![0x20, 0x09, 0x0a, 0x0d].contains($0) }) == UInt8(ascii: "[")
                ? try ControlJSON.decode([Fault].self, from: body) : [try ControlJSON.decode(Fault.self, from: body)]
            added = try await actions.inject(faults)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description)
        } catch let error as FaultInjector.FaultError {
            return ControlJSON.error(error.description + "; nothing was added")
        }
        return try ControlJSON.response(added)
    }

    private func reset() async throws -> Response {
        try await actions.reset()
        return try ControlJSON.response(["status": "reset"])
    }
}

extension Request {
    /// The query parameters, the first value of each name. An empty value is a value (`?since=` is refused as no
    /// time), so a filter left blank by mistake is never read as no filter.
    var queryValues: [String: String] {
        var values: [String: String] = [:]
        for (name, value) in uri.queryParameters where values[String(name)] == nil { values[String(name)] = String(value) }
        return values
    }
}
