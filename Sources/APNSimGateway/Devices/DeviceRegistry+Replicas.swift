import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// The registry as one of several replicas on one store (docs/cluster.md): its devices' links are written for the
/// others to read, and a push for a device linked to another replica is handed to that one (``HandOff``) rather than
/// held here. ``replica`` is `nil` for the only gateway, and none of this happens.
extension DeviceRegistry {
    /// Where the pushes for `device` go when it has no link here: the replica it is linked to, if another.
    func replicaElsewhere(of device: String) -> String? {
        guard let replica, let there = elsewhere[device], there != replica else { return nil }
        return there
    }

    /// `delivery` for `device`, linked to replica `there`: handed to it, to deliver as its own.
    mutating func handOff(_ delivery: DeviceLinkMessage.Delivery, to device: String, at there: String, expiration: PushPlan.Expiration,
                          uniqueID: String?, now: Date, recorded: Bool = false, hops: Int = 0) -> DeliveryEvent {
        .handedOff(HandOff(replica: there, device: device, delivery: delivery, expiration: expiration, uniqueID: uniqueID,
                           acceptedAt: now, recorded: recorded, hops: hops))
    }

    /// A push another replica handed here. Delivered as this replica's own unless the device has no link here and is
    /// linked to a third, which it is handed on to, at most ``HandOff/maximumHops`` times (the device moved while it was
    /// on its way); past that it is held here until the device links here or this replica hears where it is.
    mutating func take(_ handOff: HandOff, now: Date) -> Actions {
        let device = handOff.device
        // Done in the batch that records what it became, and not before: a replica killed first leaves it to another.
        let done: [DeliveryEvent] = handOff.row.map { [.handOffDone(row: $0)] } ?? []
        if case .removed(let former) = destination(of: handOff.delivery.token) {
            // The app was removed here after the replica that accepted it last heard (docs/cluster.md, "An app removed").
            let delivery = handOff.delivery
            // Handed here because the device is linked here: not handed on again.
            let told = tells(former, throughAnotherReplica: false)
            var record = Self.uninstalled(id: delivery.id, apnsID: delivery.apnsID, bundleID: delivery.bundleID, token: delivery.token,
                                          pushType: delivery.pushType, former: former, acceptedAt: handOff.acceptedAt, now: now, told: told)
            record.uniqueID = handOff.uniqueID
            let dropped: DeliveryEvent = handOff.recorded
                ? .receipt(id: delivery.id, outcome: .dropped, content: nil, detail: record.detail, at: now)
                : .accepted(record)
            return Actions(persist: [dropped] + done + (told ? learned(delivery.token, from: former.device, at: now) : []))
        }
        if link(of: device) == nil, let there = replicaElsewhere(of: device), handOff.hops < HandOff.maximumHops {
            var onward = handOff
            (onward.replica, onward.hops, onward.row) = (there, handOff.hops + 1, nil)
            return Actions(persist: [.handedOff(onward)] + done)
        }
        if handOff.recorded, case .until(let expiry) = handOff.expiration, expiry <= now, link(of: device) != nil {
            // Stored while the device was out of reach, past its expiry now that it is here: dropped, as it would have been.
            return Actions(persist: [.receipt(id: handOff.delivery.id, outcome: .dropped, content: nil, detail: HeldPushes.expiredDetail,
                                              at: now)] + done)
        }
        if devices[device] == nil {
            // Not linked here yet: known from the registration, so the push waits for it as for any device of this replica.
            devices[device] = Device(descriptor: DeviceDescriptor(id: device, name: device))
        }
        var actions = Actions()
        deliver(handOff.delivery, to: device, expiration: handOff.expiration, uniqueID: handOff.uniqueID, now: handOff.acceptedAt,
                record: !handOff.recorded, mayHandOff: false, into: &actions)
        actions.persist += done
        return actions
    }

    /// The store says device `device` linked to replica `there` (another): pushes held here for it go there, those sent
    /// on a link that has ended and not acknowledged first, in the order sent, then those stored while it was out of reach.
    mutating func linked(_ device: String, at there: String, now: Date) -> Actions {
        guard let replica, there != replica else { return Actions() }
        elsewhere[device] = there
        guard link(of: device) == nil else { return Actions(devicesChanged: true) }
        departed.insert(device)
        var actions = Actions(devicesChanged: true)
        // Stored here before this replica heard of the link, perhaps after that replica claimed what was stored: moved there.
        if held.storedInStore, held.holdsStored(device) { actions.persist.append(.storedClaimed(device: device, replica: there)) }
        let (pushes, events) = held.takeAll(of: device)
        for push in pushes {
            actions.persist.append(handOff(push.delivery, to: device, at: there, expiration: push.expires.map(PushPlan.Expiration.until) ?? .storeByDefault,
                                           uniqueID: nil, now: now, recorded: true))
        }
        // Released after the hand-offs are written: one transaction has both, or a later one the release.
        actions.persist += events
        return actions
    }

    /// The store says device `device`'s link to replica `there` ended.
    mutating func unlinked(_ device: String, at there: String) -> Actions {
        guard elsewhere[device] == there else { return Actions() }
        elsewhere[device] = nil
        return Actions(devicesChanged: true)
    }

    /// Every device linked to a replica now, as the store has them: what this replica knows of the others' links is
    /// replaced, and pushes held here for a device linked elsewhere go there.
    mutating func links(_ all: [String: String], now: Date) -> Actions {
        elsewhere = all.filter { $0.value != replica }
        departed.formUnion(elsewhere.keys.filter { link(of: $0) == nil })
        var actions = Actions(devicesChanged: true)
        for (device, there) in elsewhere.sorted(by: { $0.key < $1.key }) where held.holds(device) {
            actions.append(linked(device, at: there, now: now))
        }
        return actions
    }

    /// Another replica recorded the app of `registration` removed from its device: a token this replica took in answers
    /// 410 from the same moment on, and its app's push-to-start tokens and activities go with it, as on that replica.
    /// The store has the removal already, so nothing is written.
    mutating func removedElsewhere(_ registration: DeviceRegistration) -> Actions {
        guard let at = registration.unregisteredFrom else { return Actions() }
        // Removed here already, and now another replica's push reached the device, which told APNs: 410 from then on.
        if tokens[registration.token]?.holder == .removed(from: registration.device.id, at: UninstallDelay.notLearned) {
            _ = learned(registration.token, from: registration.device.id, at: at)
            return Actions()
        }
        return unregister(registration.token, device: registration.device.id, at: at, record: false)
    }

    /// A token this replica did not know, as the replica its device registered through wrote it: this one knows it from
    /// now on, and where its device is linked. A token known here meanwhile is left as it is.
    mutating func adopt(_ registration: DeviceRegistration, linkedTo there: String?) {
        guard tokens[registration.token] == nil else { return }
        restore(RestartState(registrations: [registration]))
        if let there, there != replica, link(of: registration.device.id) == nil { elsewhere[registration.device.id] = there }
    }
}
