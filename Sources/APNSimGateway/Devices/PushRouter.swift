import APNSimRules
import Foundation
import NIOCore
import NIOPosix

/// Hands each accepted push to the ``DeviceRegistry`` (through ``DeviceDirectory``), which records it and sends it
/// to the device that owns its token, holds it, or records why no device shows it; a `deviceLink` latency fault
/// makes it reach its device that much later.
struct PushRouter: Sendable {
    let directory: DeviceDirectory
    let faults: FaultInjector
    let clock: WallClock

    /// `uniqueID`: the `apns-unique-id` the provider was answered with (development only), kept in the delivery record.
    func route(_ plan: PushPlan, apnsID: String, uniqueID: String? = nil, payload: String, now: Date) {
        if faults.anyInForce, case .device(let device) = directory.destination(of: plan.token), let slow = faults.deviceLink(device, now: now),
           let milliseconds = slow.latencyMs, slow.drop != true {
            // A slow device link: the push reaches the device that much later (the provider's 200 does not wait).
            let router = self
            MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .milliseconds(Int64(milliseconds))) {
                router.directory.route(plan, apnsID: apnsID, uniqueID: uniqueID, payload: payload, now: router.clock.now())
            }
            return
        }
        directory.route(plan, apnsID: apnsID, uniqueID: uniqueID, payload: payload, now: now)
    }
}
