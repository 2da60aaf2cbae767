import APNSimDeviceLink
import APNSimRules
import Foundation

/// A Live Activity its app scheduled to start later (iOS 26: `Activity.request(attributes:content:pushType:style:
/// alertConfiguration:start:)`). The gateway keeps it until then, since the gateway has the world's clock: at its start
/// on that clock (a virtual clock's `advance` included) it gets its push token and goes to the device as any activity an
/// app starts; until then it has no token, so no push reaches it. Kept in memory, as an end waiting for a device is.
struct ScheduledActivity: Sendable, Hashable {
    /// The activity as it will start: `startedAt` is its start, `pushToken` not yet given.
    var activity: LiveActivity
    var environment: APNsEnvironment
}

extension DeviceRegistry {
    /// An app on `device` schedules `activity` to start at its `startedAt`.
    mutating func schedule(_ activity: LiveActivity, environment: APNsEnvironment, device: String) -> Actions {
        guard devices[device] != nil else { return Actions() }
        devices[device]?.scheduled[activity.id] = ScheduledActivity(activity: activity, environment: environment)
        return Actions(devicesChanged: true)
    }

    /// The scheduled activities due at `now` whose devices are linked here, by device and ID; one whose device has no
    /// link waits for it, as iOS would start it once the device is on again.
    func dueScheduled(at now: Date) -> [(device: String, id: String)] {
        devices.values.filter { $0.session != nil }.flatMap { device in
            device.scheduled.values.filter { $0.activity.startedAt <= now }
                .sorted { ($0.activity.startedAt, $0.activity.id) < ($1.activity.startedAt, $1.activity.id) }
                .map { (device.descriptor.id, $0.activity.id) }
        }
    }

    /// Scheduled activity `id` of `device` starts: with `token` (none for one subscribed to a channel), told to the device.
    mutating func startScheduled(_ id: String, device: String, token: DeviceToken, newID: () -> String, now: Date) -> Actions {
        guard var scheduled = devices[device]?.scheduled.removeValue(forKey: id) else { return Actions() }
        if scheduled.activity.channelID == nil { scheduled.activity.pushToken = token }
        return startActivity(scheduled.activity, environment: scheduled.environment, device: device, newID: newID, now: now)
    }

    /// The app ends scheduled activity `id` before it started: it never starts. `nil` when none is scheduled by that ID.
    mutating func cancelScheduled(_ id: String) -> ActivityEnd? {
        for (device, entry) in devices where entry.scheduled[id] != nil {
            guard let scheduled = devices[device]?.scheduled.removeValue(forKey: id) else { continue }
            return .cancelled(scheduled.activity, device: device)
        }
        return nil
    }
}
