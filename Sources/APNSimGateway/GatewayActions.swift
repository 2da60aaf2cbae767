import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// What the control API and ``Gateway``'s own API both do to a running gateway: inject faults, reset.
struct GatewayActions: Sendable {
    let world: WorldRegistry
    let faults: FaultInjector
    let connections: ProviderConnections
    let devices: DeviceDirectory
    let recorder: SendRecorder
    /// Provider connections refused or closed (`GET /v1/connections`).
    let connectionRecords: ConnectionRecorder
    let deliveries: DeliveryRecorder
    let clock: WallClock
    /// Requests waiting for a device's answer (an interaction, a summary delivered on request).
    let requests: DeviceRequests
    let store: any Store
    let metrics: GatewayMetrics

    /// Adds faults (nothing if any is unusable) and lets those that act at once act before it returns: a GOAWAY or
    /// drop without `after` or `at`, new SETTINGS, a device link dropped (docs/faults.md).
    func inject(_ added: [Fault]) async throws(FaultInjector.FaultError) -> [Fault] {
        let added = try faults.add(added, now: clock.now())
        for fault in faults.takeImmediateConnectionFaults() { await connections.broadcast(fault) }
        for fault in added where fault.resolvedKind == .settings { await connections.broadcast(fault) }
        for fault in added where fault.resolvedKind == .deviceLink {
            guard let device = fault.device else { continue }
            if fault.drop == true {
                recorder.record(.faultEvent(fault, event: "LINK", at: clock.now(),
                                            explanation: "the device link of \(device) was dropped; the device reconnects"))
                devices.link(of: device)?.close()
            } else {
                recorder.record(.faultEvent(fault, event: "LINK", at: clock.now(),
                                            explanation: "pushes reach \(device) \(fault.latencyMs ?? 0) ms late"))
            }
        }
        return added
    }

    /// Forgets every send and delivery, drops faults and held pushes, and puts the world back as it was loaded.
    /// Devices still registered keep their tokens: a reset forgets what happened, not who is there.
    func reset() async throws {
        faults.clear()
        try await recorder.deleteAll()
        try await connectionRecords.deleteAll()
        devices.reset()
        try await deliveries.deleteAll()
    }

    /// Why an app could not start a Live Activity.
    struct ActivityRefusal: Error, CustomStringConvertible {
        enum Kind { case notConnected, notInstalled, undeclared, noChannel }
        var kind: Kind
        var description: String
    }

    /// An app on `device` starts a Live Activity, as `Activity.request` does (`POST /v1/devices/{id}/activities`,
    /// ``Gateway/startActivity(device:app:type:attributes:contentState:)``): the device must be connected with the app
    /// registered, and, when the world declares the app's types, the type and its fields must be among them.
    func startActivity(device: String, bundleID: String, type: String, attributes: [String: JSONValue], contentState: [String: JSONValue],
                       staleDate: Date? = nil, relevanceScore: Double? = nil, channel: String? = nil,
                       start: Date? = nil) -> Result<LiveActivity, ActivityRefusal> {
        guard devices.link(of: device) != nil else {
            return .failure(.init(kind: .notConnected, description: "device \(device) is not connected; start it first (apnsim device --id \(device))"))
        }
        guard let app = devices.registration(of: device, bundleID: bundleID) else {
            return .failure(.init(kind: .notInstalled, description: "device \(device) has no registered \(bundleID); install it first"))
        }
        // What the app's `ActivityAttributes` types would decode, when the world declares them: an app cannot request an
        // activity of a type it does not have (Swift's types say so at compile time).
        if let declared = world.read({ $0.apps[bundleID]?.activityTypes }) {
            guard let declaredType = declared.first(where: { $0.name == type }) else {
                return .failure(.init(kind: .undeclared, description: "\(bundleID) has no ActivityAttributes type \(type); it declares "
                                      + (declared.isEmpty ? "none" : declared.map(\.name).joined(separator: ", "))))
            }
            if let problem = declaredType.attributesProblem(attributes) ?? declaredType.contentStateProblem(contentState) {
                return .failure(.init(kind: .undeclared, description: problem))
            }
        }
        // ActivityKit takes any channel ID; apnsim refuses one the gateway never created, since nothing would ever reach it.
        if let channel, world.read({ $0.channel(channel, bundleID: bundleID, environment: app.environment) }) == nil {
            return .failure(.init(kind: .noChannel, description: "\(bundleID) has no broadcast channel \(channel) in \(app.environment); "
                                  + "create one first (apnsim channel create \(bundleID))"))
        }
        let now = clock.now()
        let requested = LiveActivity(id: "", bundleID: bundleID, attributesType: type, attributes: attributes, contentState: contentState,
                                     startedAt: max(start ?? now, now), staleDate: staleDate, relevanceScore: relevanceScore, channelID: channel)
        // A start still to come on the world's clock: scheduled (iOS 26), with no token until then.
        if let start, start > now { return .success(devices.schedule(requested, environment: app.environment, device: device)) }
        return .success(devices.startActivity(requested, environment: app.environment, device: device, now: now))
    }
}
