import APNSimCore
import APNSimStore
import Foundation
import NIOCore
import NIOPosix

/// Sends each accepted push to the simulated device that owns its token (or holds it for that device), and
/// records the delivery. A push for an app that was removed from its device (accepted within the gateway's
/// uninstall delay) is recorded as dropped, saying so. Tokens no device ever owned (declared in the world file) are
/// accepted and go nowhere, as before devices existed.
struct PushRouter: Sendable {
    let directory: DeviceDirectory
    let deliveries: DeliveryRecorder
    let faults: FaultInjector
    let clock: WallClock

    func route(_ plan: PushPlan, apnsID: String, payload: String, now: Date) {
        guard let device = directory.owner(of: plan.token) else {
            if let former = directory.formerOwner(of: plan.token) { recordUninstalled(plan, apnsID: apnsID, former: former, now: now) }
            return
        }
        if let slow = faults.deviceLink(device, now: now), let milliseconds = slow.latencyMs, slow.drop != true {
            // A slow device link: the push reaches the device that much later (the provider's 200 does not wait).
            let router = self
            MultiThreadedEventLoopGroup.singleton.next().scheduleTask(in: .milliseconds(Int64(milliseconds))) {
                router.deliver(plan, apnsID: apnsID, payload: payload, to: device, now: router.clock.now())
            }
            return
        }
        deliver(plan, apnsID: apnsID, payload: payload, to: device, now: now)
    }

    /// Apple: after an app is removed, APNs keeps accepting pushes to its token for a while before it answers 410;
    /// none reaches the device.
    /// One write, the record complete (as a receipt would leave it), rather than an insert and an update.
    private func recordUninstalled(_ plan: PushPlan, apnsID: String, former: TokenOwnership.FormerOwner, now: Date) {
        var record = DeliveryRecord(id: UUID().uuidString, apnsId: apnsID, device: former.device, bundleID: plan.bundleID,
                                    token: plan.token.hex, pushType: plan.pushType.rawValue, acceptedAt: now)
        record.outcome = .dropped
        record.detail = "\(former.bundleID) was removed from device \(former.device) at \(former.removedAt.formatted(ControlJSON.dateStyle)); "
            + "APNs accepted the push within its uninstall delay, and no device shows it"
        (record.deliveredAt, record.displayedAt) = (now, now)
        deliveries.record(.accepted(record))
    }

    private func deliver(_ plan: PushPlan, apnsID: String, payload: String, to device: String, now: Date) {
        let delivery = DeviceLinkMessage.Delivery(id: UUID().uuidString, apnsID: apnsID, token: plan.token,
                                                  bundleID: plan.bundleID, pushType: plan.pushType, priority: plan.priority,
                                                  collapseID: plan.collapseID, payload: payload)
        deliveries.record(.accepted(DeliveryRecord(id: delivery.id, apnsId: apnsID, device: device, bundleID: plan.bundleID,
                                                   token: plan.token.hex, pushType: plan.pushType.rawValue, acceptedAt: now)))
        switch directory.route(delivery, to: device, expiration: plan.expiration, now: now) {
        case .sent:
            break
        case .stored(let replaced?):
            deliveries.record(.receipt(id: replaced, outcome: .dropped, content: nil,
                                       detail: "replaced by a newer push for the same app while the device was offline (APNs keeps one)",
                                       at: now))
        case .stored:
            break
        case .dropped:
            deliveries.record(.receipt(id: delivery.id, outcome: .dropped, content: nil,
                                       detail: "the device was offline and apns-expiration was 0, so APNs does not store it", at: now))
        }
    }
}
