import APNSimCore
import APNSimStore
import Foundation

/// What the control API and ``Gateway``'s own API both do to a running gateway: inject faults, reset.
struct GatewayActions: Sendable {
    let world: WorldRegistry
    let faults: FaultInjector
    let connections: ProviderConnections
    let devices: DeviceDirectory
    let recorder: SendRecorder
    let deliveries: DeliveryRecorder
    let clock: WallClock

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
    func reset() throws {
        faults.clear()
        try recorder.deleteAll()
        devices.reset()
        try deliveries.deleteAll()
    }
}
