import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// Broadcast channels (iOS 18; Apple, "Sending broadcast push notification requests to APNs",
/// https://developer.apple.com/documentation/usernotifications/sending-broadcast-push-notification-requests-to-apns):
/// the registry owns them with the activities subscribed to them, so a broadcast reaches exactly the activities that
/// subscribed, on whichever devices they are.
extension DeviceRegistry {
    /// A provider created a channel (`POST /1/apps/{bundle-id}/channels`); refused past the per-app limit.
    mutating func createChannel(_ channel: BroadcastChannel) -> Rejection? {
        changeWorld { $0.create(channel) }
    }

    /// A provider deleted a channel: broadcasts to it answer `ChannelNotRegistered` from now on, and its stored message
    /// goes (Apple says a deleted channel's stored messages may still be delivered; apnsim delivers none). Activities
    /// subscribed to it stay, and hear nothing more.
    mutating func deleteChannel(_ id: String) {
        changeWorld { $0.channels[id] = nil }
        storedBroadcasts[id] = nil
    }

    /// Another replica created channel `channel` (docs/cluster.md, "Broadcasts across replicas"): known here from now on.
    mutating func channelCreatedElsewhere(_ channel: BroadcastChannel) {
        changeWorld { $0.channels[channel.id] = channel }
    }

    /// The channels as the store has them, read when this replica listens again: those deleted meanwhile go, with their
    /// stored messages.
    mutating func channels(_ all: [BroadcastChannel]) {
        let channels = Dictionary(all.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        changeWorld { $0.channels = channels }
        storedBroadcasts = storedBroadcasts.filter { channels[$0.key] != nil }
    }

    /// One Live Activity a broadcast goes to, and the device it is on.
    struct BroadcastTarget: Sendable, Hashable {
        var device: String
        var activity: String
    }

    /// An accepted broadcast begins: a channel with storage keeps the message for activities that subscribe later, and
    /// the activities subscribed now, on devices whose app is in the channel's environment, come back in shares, each
    /// of at most ``carryShare`` on devices of one process. The shares are delivered one at a time
    /// (``broadcast(_:to:apnsID:payload:newID:now:)``), each its own event, so the first is on its way to its process
    /// while the next is made, and receipts are taken in between.
    mutating func beginBroadcast(_ plan: BroadcastPlan, apnsID: String, payload: String, now: Date) -> [[BroadcastTarget]] {
        let channel = plan.channel
        if let until = plan.storedUntil(now: now) {
            storedBroadcasts[channel.id] = StoredBroadcast(apnsID: apnsID, priority: plan.priority, payload: payload, expires: until)
        }
        var byHost: [String: [BroadcastTarget]] = [:]
        let departed = self.departed
        devices.forEachInPlace { device in  // every device and activity read where it is stored, not copied
            let (id, host) = (device.descriptor.id, device.host ?? "")
            // The replica it last linked to fans out to it, knowing its activities as they are now (docs/cluster.md).
            guard !departed.contains(id) else { return }
            device.activities.forEachInPlace { activity in
                if activity.channelID == channel.id && activity.bundleID == channel.bundleID {
                    byHost[host, default: []].append(BroadcastTarget(device: id, activity: activity.id))
                }
            }
        }
        var shares = byHost.sorted { $0.key < $1.key }.flatMap { _, targets in
            let sorted = targets.sorted { ($0.device, $0.activity) < ($1.device, $1.activity) }
            return stride(from: 0, to: sorted.count, by: Self.carryShare).map { Array(sorted[$0..<min($0 + Self.carryShare, sorted.count)]) }
        }
        spreadCarriers(&shares)
        return shares
    }

    /// Puts first in each share the device whose link carries it (``carryTogether(_:)``), chosen so the shares' links
    /// are spread over the gateway's event loops: a share is made, and its receipts are read, on its carrier's loop.
    /// With the first device of each share as carrier, most of a broadcast's links could sit on one loop, which then
    /// read every receipt in turn while the other had nothing to do (timestamps in a `Benchmarks/broadcast.sh` run: the
    /// last 6 ms of a broadcast). Looks at the first few devices of a share only.
    private mutating func spreadCarriers(_ shares: inout [[BroadcastTarget]]) {
        var carried: [ObjectIdentifier: Int] = [:]  // shares per event loop so far
        for index in shares.indices {
            var best: (position: Int, loop: ObjectIdentifier, count: Int)?
            for position in shares[index].indices.prefix(8) {
                guard let session = inPlace(shares[index][position].device, { $0.session }) ?? nil else { continue }
                let loop = ObjectIdentifier(session.eventLoop)
                let count = carried[loop, default: 0]
                if best.map({ count < $0.count }) ?? true { best = (position, loop, count) }
                if count == 0 { break }
            }
            guard let best else { continue }
            carried[best.loop, default: 0] += 1
            shares[index].swapAt(0, best.position)
        }
    }

    /// One share of a broadcast: one delivery, recorded, for each of `share` still subscribed to the channel, sent or
    /// held as the channel's storage policy says; those for devices of one process go together (``carryTogether(_:)``).
    /// `newID` gives each delivery its ID.
    mutating func broadcast(_ plan: BroadcastPlan, to share: [BroadcastTarget], apnsID: String, payload: String,
                            newID: () -> String, now: Date) -> Actions {
        let channel = plan.channel
        let expiration: PushPlan.Expiration = plan.storedUntil(now: now).map { .until($0) } ?? .once
        var actions = Actions()
        actions.send.reserveCapacity(share.count)
        actions.persist.reserveCapacity(share.count * 2)
        for target in share {
            let subscribed = inPlace(target.device) { device -> [DeviceToken]? in
                guard device.activities.inPlace(target.activity, { $0.channelID == channel.id }) == true else { return nil }
                return device.tokens
            }
            guard let held = subscribed ?? nil, let app = deviceToken(among: held, of: target.device, bundleID: channel.bundleID),
                  app.environment == channel.environment else { continue }
            let delivery = DeviceLinkMessage.Delivery(id: newID(), apnsID: apnsID, token: app.token, bundleID: channel.bundleID,
                                                      pushType: .liveactivity, priority: plan.priority, collapseID: nil,
                                                      payload: payload, channel: channel.id, activity: target.activity)
            deliver(delivery, to: target.device, expiration: expiration, now: now, into: &actions)
        }
        carryTogether(&actions)
        return actions
    }

    /// The pushes of one share of a broadcast for several devices of one process (``DeviceSession/host``) go to that
    /// process together, on the link of the first of them (``DeviceLinkMessage.ToDevice/Carry``): one write and one read where
    /// there were one per device. They are grouped by the host each link names now, not the one
    /// ``beginBroadcast(_:apnsID:payload:now:)`` saw: a device that came back from another process in between gets its
    /// push on its own link. Each stays held for its own device until its receipt; should the carrying link end first,
    /// they go to their devices one by one (``detach(_:)``).
    private mutating func carryTogether(_ actions: inout Actions) {
        var byHost: [(host: String, pushes: [(session: DeviceSession, delivery: DeviceLinkMessage.Delivery)])] = []
        var others: [(session: DeviceSession, message: DeviceLinkMessage.ToDevice)] = []
        for (session, message) in actions.send {
            guard case .push(let delivery) = message, let host = session.host else {
                others.append((session, message))
                continue
            }
            if let index = byHost.firstIndex(where: { $0.host == host }) {
                byHost[index].pushes.append((session, delivery))
            } else {
                byHost.append((host, [(session, delivery)]))
            }
        }
        for (_, pushes) in byHost {
            guard pushes.count > 1, let carrier = pushes.first?.session else {
                others += pushes.map { ($0.session, .push($0.delivery)) }
                continue
            }
            held.carry(pushes.map(\.delivery.id), by: carrier.descriptor.id)
            others.append((carrier, .carry(.init(pushes: pushes.map { .init(device: $0.session.descriptor.id, body: $0.delivery) }))))
        }
        actions.send = others
    }

    /// How many pushes one link carries for its process, and so how many one share of a broadcast makes. Measured with
    /// `Benchmarks/broadcast.sh` on 2 cores: a thousand on one link are read and answered one share after another; in
    /// shares of 100 they go side by side, and the first is answered while the last is made.
    static let carryShare = 100

    /// Activity `activity` on `device` subscribed to its channel: the channel's stored message, if it has one that has
    /// not expired, is delivered to it as to one that was subscribed when it was sent.
    mutating func subscribed(_ activity: LiveActivity, device: String, newID: () -> String, now: Date) -> Actions {
        guard let channelID = activity.channelID, let stored = storedBroadcasts[channelID], stored.expires > now,
              let channel = world.channels[channelID], channel.bundleID == activity.bundleID,
              let app = registration(of: device, bundleID: activity.bundleID), app.environment == channel.environment else { return Actions() }
        let delivery = DeviceLinkMessage.Delivery(id: newID(), apnsID: stored.apnsID, token: app.token, bundleID: activity.bundleID,
                                                  pushType: .liveactivity, priority: stored.priority, collapseID: nil,
                                                  payload: stored.payload, channel: channelID, activity: activity.id)
        return deliver(delivery, to: device, expiration: .until(stored.expires), now: now)
    }
}
