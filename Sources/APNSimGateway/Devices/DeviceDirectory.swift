import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation
import NIOCore
import Synchronization

/// Carries out what the ``DeviceRegistry`` decides: each event runs under the registry's lock, its records are
/// persisted there in order (``persist``), and its messages go out on the device links after. A gateway started on a
/// store file takes back what the last run left (``restore(_:)``), so a restart loses no token and no pending push.
final class DeviceDirectory: Sendable {
    typealias Device = DeviceRegistry.Device

    private let registry: WorldRegistry
    private let persist: @Sendable ([DeliveryEvent]) -> Void
    private let deliveryIDs = Mutex(RandomUUIDs())
    /// Counts what changes in `GET /v1/devices` (online, apps, refusals, badges), for the inbox.
    let revisions: ChangeCounter

    init(registry: WorldRegistry, persist: @escaping @Sendable ([DeliveryEvent]) -> Void = { _ in }, changes: ChangeSignal? = nil) {
        self.registry = registry
        self.persist = persist
        self.revisions = ChangeCounter(signalling: changes)
    }

    /// Runs one event, persists its records under the lock, then sends its messages (`atOnce`: see
    /// ``DeviceSession/send(_:atOnce:)``) and signals a change.
    @discardableResult
    private func perform(atOnce: Bool = false, _ event: (inout DeviceRegistry) -> DeviceRegistry.Actions?) -> Bool {
        let persist = self.persist
        let actions = registry.change { registry -> DeviceRegistry.Actions? in
            let actions = event(&registry)
            if let events = actions?.persist, !events.isEmpty { persist(events) }
            return actions
        }
        guard let actions else { return false }
        for (session, message) in actions.send { session.send(message, atOnce: atOnce) }
        if actions.devicesChanged { revisions.bump() }
        return true
    }

    /// Whether held pushes are recorded for a restart to take back (``HeldPushes/recordsRestartState``): only when the
    /// record is a file.
    func recordRestartState(_ records: Bool) {
        registry.change { $0.held.recordsRestartState = records }
    }

    func restore(_ saved: RestartState) {
        registry.change { $0.restore(saved) }
    }

    // MARK: - Replicas (docs/cluster.md)

    /// Names this gateway as replica `name` of several on one store: its devices' links are written, and pushes for
    /// devices linked to others handed to them.
    func join(as name: String) {
        registry.change { $0.replica = name }
    }

    /// Pushes other replicas handed to this one, in the order handed.
    func take(_ handOffs: [HandOff], now: Date) {
        perform { registry in
            var actions = DeviceRegistry.Actions()
            for handOff in handOffs { actions.append(registry.take(handOff, now: now)) }
            return actions
        }
    }

    /// Another replica's devices linked there, under one lock.
    func linked(_ devices: [String], at replica: String, now: Date) {
        perform { registry in
            var actions = DeviceRegistry.Actions()
            for device in devices { actions.append(registry.linked(device, at: replica, now: now)) }
            return actions
        }
    }

    /// Another replica recorded these apps removed (``DeviceRegistry/removedElsewhere(_:)``).
    func removedElsewhere(_ registrations: [DeviceRegistration]) {
        perform { registry in
            var actions = DeviceRegistry.Actions()
            for registration in registrations { actions.append(registry.removedElsewhere(registration)) }
            return actions
        }
    }

    func unlinked(_ device: String, at replica: String) {
        perform { $0.unlinked(device, at: replica) }
    }

    /// Every device linked to a replica, as the store has them now.
    func links(_ all: [String: String], now: Date) {
        perform { $0.links(all, now: now) }
    }

    /// A token another replica registered (``DeviceRegistry/adopt(_:linkedTo:)``).
    func adopt(_ registration: DeviceRegistration, linkedTo replica: String?) {
        perform { registry in
            registry.adopt(registration, linkedTo: replica)
            return DeviceRegistry.Actions(devicesChanged: true)
        }
    }

    /// Whether a device linked here has Live Activity `id`.
    func hasActivity(_ id: String) -> Bool {
        registry.inspect { registry in registry.devices.values.contains { $0.activities[id] != nil } }
    }

    /// The replica device `id` is linked to, when it is another.
    func replicaElsewhere(of id: String) -> String? {
        registry.inspect { $0.replicaElsewhere(of: id) }
    }

    /// The replica each of `ids` is linked to: `me` for one linked here (or parked here), another's name as the store
    /// last told; absent for a device linked to none.
    func replicas(of ids: Set<String>, named me: String) -> [String: String] {
        registry.inspect { registry in
            var found: [String: String] = [:]
            for id in ids {
                if let device = registry.devices[id], (device.session ?? device.parked) != nil {
                    found[id] = me
                } else if let there = registry.replicaElsewhere(of: id) {
                    found[id] = there
                }
            }
            return found
        }
    }

    /// Every device, by ID, with its apps as the token table has them.
    var devices: [DeviceRegistry.Listed] {
        registry.inspect { registry in
            registry.devices.values.sorted { $0.descriptor.id < $1.descriptor.id }.map { device in
                DeviceRegistry.Listed(device: device, apps: registry.apps(of: device.descriptor.id))
            }
        }
    }

    /// The IDs of the devices of `specs` that are not linked with every app of their spec registered in its environment,
    /// among `devices` (what `apnsim up` waits for before its banner, and `GET /readyz` before it answers ready).
    static func unregistered(_ specs: [World.DeviceSpec], in devices: [DeviceRegistry.Listed]) -> [String] {
        let seen = Dictionary(devices.map { ($0.descriptor.id, $0) }, uniquingKeysWith: { $1 })
        return specs.flatMap { spec in
            spec.deviceIDs.filter { id in
                guard let device = seen[id], device.session != nil else { return true }
                return !spec.apps.allSatisfy { app in
                    device.apps.contains { $0.bundleID == app.bundleID && $0.environment == app.environment }
                }
            }
        }
    }

    func destination(of token: DeviceToken) -> DeviceRegistry.Destination {
        registry.inspect { $0.destination(of: token) }
    }

    func attach(_ session: DeviceSession, now: Date) {
        perform { $0.attach(session, now: now) }
    }

    /// Returns `false` when no such device exists.
    func setOffline(_ id: String, _ offline: Bool, now: Date) -> Bool {
        perform { $0.setOffline(id, offline, now: now) }
    }

    /// Turns a Focus on or off on a connected device; `false` when it is not connected.
    func setFocus(_ focus: Focus?, of id: String) -> Bool {
        perform { $0.setFocus(focus, of: id) }
    }

    /// Sets or clears a connected device's Scheduled Summary; `false` when it is not connected.
    func setSummary(_ summary: ScheduledSummary?, of id: String) -> Bool {
        perform { $0.setSummary(summary, of: id) }
    }

    /// Devices linked now, and the pushes held for devices (stored while out of reach, sent and not acknowledged).
    var counts: (online: Int, stored: Int, unacknowledged: Int) {
        registry.inspect { registry in
            let held = registry.held.counts
            return (registry.devices.values.count { $0.session != nil }, held.stored, held.unacknowledged)
        }
    }

    /// Puts device `id` in Low Power Mode or takes it out; `false` when the gateway does not know it.
    func setLowPowerMode(_ on: Bool, of id: String, now: Date) -> Bool {
        perform { $0.setLowPowerMode(on, of: id, now: now) }
    }

    /// Turns app `bundleID`'s notifications on device `id` on or off; `false` when the gateway does not know the device.
    func setNotifications(_ on: Bool, of bundleID: String, on id: String) -> Bool {
        perform { $0.setNotifications(on, of: bundleID, on: id) }
    }

    func detach(_ session: DeviceSession) {
        perform { $0.detach(session) }
    }

    func register(_ registered: DeviceLinkMessage.Registered, device: String, team: String?, badge: Int?) {
        perform { $0.register(registered, device: device, team: team, badge: badge) }
    }

    /// Device `device` reported an app's Live Activities (``DeviceRegistry/report(_:device:)``).
    func report(_ report: DeviceLinkMessage.ActivityReport, device: String) {
        perform { $0.report(report, device: device) }
    }

    /// Starts `activity` on `device` with a new ID and push token (``DeviceRegistry/startActivity(_:environment:device:)``),
    /// and returns it as started.
    /// One subscribed to a channel gets no token, and the channel's stored message if it has one.
    func startActivity(_ activity: LiveActivity, environment: APNsEnvironment, device: String, now: Date) -> LiveActivity {
        var activity = activity
        (activity.id, activity.pushToken) = deliveryIDs.withLock { ($0.upperCaseUUID(), activity.channelID == nil ? $0.token() : nil) }
        perform { $0.startActivity(activity, environment: environment, device: device, newID: newID, now: now) }
        return activity
    }

    /// `device`'s app schedules `activity` to start at its `startedAt` (``ScheduledActivity``): returned with its ID.
    func schedule(_ activity: LiveActivity, environment: APNsEnvironment, device: String) -> LiveActivity {
        var activity = activity
        activity.id = deliveryIDs.withLock { $0.upperCaseUUID() }
        perform { $0.schedule(activity, environment: environment, device: device) }
        return activity
    }

    /// Starts the scheduled activities due at `now` (their devices linked), each with a new push token. Called before
    /// the activities are listed, after the virtual clock moves, and every second while the gateway runs.
    func startScheduled(now: Date) {
        let due = registry.inspect { $0.dueScheduled(at: now) }
        for (device, id) in due {
            let token = deliveryIDs.withLock { $0.token() }
            perform { $0.startScheduled(id, device: device, token: token, newID: newID, now: now) }
        }
    }

    // MARK: - Broadcast channels

    /// A new channel of `bundleID` in `environment`, with a new ID; or why not (the app's limit).
    func createChannel(bundleID: String, environment: APNsEnvironment, policy: BroadcastChannel.StoragePolicy,
                       now: Date) -> Result<BroadcastChannel, Rejection> {
        let channel = BroadcastChannel(id: deliveryIDs.withLock { $0.channelID() }, bundleID: bundleID, environment: environment,
                                       storagePolicy: policy, createdAt: now)
        let persist = self.persist
        let refusal = registry.change { registry -> Rejection? in
            let refusal = registry.createChannel(channel)
            // The other replicas are told when it commits; the 201 waits for that.
            if refusal == nil, registry.replica != nil { persist([.channelCreated(channel)]) }
            return refusal
        }
        return refusal.map { .failure($0) } ?? .success(channel)
    }

    /// Deletes channel `id`; `told` is false when another replica deleted it, and the store has it already.
    func deleteChannel(_ id: String, told: Bool = true) {
        let persist = self.persist
        registry.change { registry in
            registry.deleteChannel(id)
            if told, registry.replica != nil { persist([.channelDeleted(id: id)]) }
        }
    }

    /// Another replica created `channel` (``DeviceRegistry/channelCreatedElsewhere(_:)``).
    func channelCreatedElsewhere(_ channel: BroadcastChannel) {
        registry.change { $0.channelCreatedElsewhere(channel) }
    }

    func knowsChannel(_ id: String) -> Bool {
        registry.inspect { $0.world.channels[id] != nil }
    }

    /// Every channel, as the store has them (``DeviceRegistry/channels(_:)``).
    func channels(_ all: [BroadcastChannel]) {
        registry.change { $0.channels(all) }
    }

    /// A broadcast: the channel keeps its message, then each share (``DeviceRegistry/beginBroadcast(_:apnsID:payload:now:)``)
    /// is made on the event loop of the link that carries it and written at once, so the shares leave side by side from
    /// every loop while the provider is answered, instead of one loop making all of them before any leaves.
    ///
    /// On a replica, the broadcast is shared in the same batch for the others to fan out to their own devices
    /// (``SharedBroadcast``); `shared` is false for one another replica shared.
    func broadcast(_ plan: BroadcastPlan, apnsID: String, payload: String, now: Date, share: Bool = true) {
        let persist = self.persist
        let shares = registry.change { registry in
            let shares = registry.beginBroadcast(plan, apnsID: apnsID, payload: payload, now: now)
            if share, let replica = registry.replica {
                persist([.broadcastShared(SharedBroadcast(replica: replica, channel: plan.channel.id, apnsID: apnsID, priority: plan.priority,
                                                          expiration: plan.expiration, payload: payload, acceptedAt: now,
                                                          storedUntil: plan.storedUntil(now: now)))])
            }
            return shares
        }
        for share in shares {
            let deliver: @Sendable () -> Void = {
                _ = self.perform(atOnce: true) { $0.broadcast(plan, to: share, apnsID: apnsID, payload: payload, newID: self.newID, now: now) }
            }
            guard let carrier = share.first.flatMap({ link(of: $0.device) }) else {
                deliver()  // its devices are offline: the pushes are held or dropped, and nothing is written
                continue
            }
            carrier.eventLoop.execute { deliver() }
        }
    }

    /// Broadcasts other replicas shared, fanned out here to the activities of this replica's own devices, each as they
    /// would have been had it accepted them; those of a channel not known here are left (deleted since).
    func broadcasts(_ shared: [SharedBroadcast]) {
        for broadcast in shared {
            guard let channel = registry.inspect({ $0.world.channels[broadcast.channel] }) else { continue }
            let plan = BroadcastPlan(channel: channel, apnsID: broadcast.apnsID, priority: broadcast.priority, expiration: broadcast.expiration)
            self.broadcast(plan, apnsID: broadcast.apnsID, payload: broadcast.payload, now: broadcast.acceptedAt, share: false)
        }
    }

    /// A channel's stored message another replica shared, kept here for activities that subscribe later, without
    /// fanning it out (read when this replica starts: its devices are not linked yet).
    func keepStored(_ shared: [SharedBroadcast], now: Date) {
        registry.change { registry in
            for broadcast in shared {
                guard let until = broadcast.storedUntil, until > now, registry.world.channels[broadcast.channel] != nil else { continue }
                registry.storedBroadcasts[broadcast.channel] = StoredBroadcast(apnsID: broadcast.apnsID, priority: broadcast.priority,
                                                                               payload: broadcast.payload, expires: until)
            }
        }
    }

    private func newID() -> String {
        deliveryIDs.withLock { $0.orderedUUID() }
    }

    /// Activity `id`'s app ends it (``DeviceRegistry/endActivity(_:contentState:dismissal:at:)``): where the end goes;
    /// `nil` when no device has it.
    func endActivity(_ id: String, contentState: [String: JSONValue]?, dismissal: Date?, at now: Date) -> DeviceRegistry.ActivityEnd? {
        var end: DeviceRegistry.ActivityEnd?
        _ = perform { registry in
            end = registry.endActivity(id, contentState: contentState, dismissal: dismissal, at: now)
            return end.map { _ in DeviceRegistry.Actions(devicesChanged: true) }
        }
        return end
    }

    /// `message` goes to device `id` first thing when it links again (an end sent on a link that ended before the
    /// device answered).
    func wait(_ message: DeviceLinkMessage.ToDevice, for id: String) {
        perform { registry in
            registry.wait(message, for: id)
            return DeviceRegistry.Actions(devicesChanged: true)
        }
    }

    /// A Live Activity as the device last reported it, with where it stands on the Lock Screen at `now`.
    struct ListedActivity: Sendable {
        var device: String
        var activity: LiveActivity
        /// Its place among its app's activities visible at `now`, in the order the device reported (1: the Dynamic
        /// Island); `nil` once dismissed.
        var displayRank: Int?
        /// An end by its app waits for the device to link (``DeviceRegistry/Device/waiting``).
        var endPending: Bool
        /// Scheduled to start at its `startedAt`, with no token yet (``ScheduledActivity``).
        var scheduled = false
    }

    /// Every device's Live Activities as `GET /v1/activities` lists them at `now`, by device and then start.
    func activityListing(now: Date) -> [ListedActivity] {
        registry.inspect { registry in
            registry.devices.values.sorted { $0.descriptor.id < $1.descriptor.id }.flatMap { device in
                let pending = registry.pendingEnds(of: device)
                let ranks = registry.displayRanks(of: device, at: now)
                return Self.activities(of: device).map { listed in
                    ListedActivity(device: listed.device, activity: listed.activity, displayRank: ranks[listed.activity.id],
                                   endPending: pending.contains(listed.activity.id))
                } + device.scheduled.values.sorted { ($0.activity.startedAt, $0.activity.id) < ($1.activity.startedAt, $1.activity.id) }.map {
                    ListedActivity(device: device.descriptor.id, activity: $0.activity, endPending: false, scheduled: true)
                }
            }
        }
    }

    /// Every device's Live Activities, with the device's ID, by device and then start.
    func activities() -> [(device: String, activity: LiveActivity)] {
        registry.inspect { registry in registry.devices.values.sorted { $0.descriptor.id < $1.descriptor.id }.flatMap(Self.activities) }
    }

    /// `device`'s activities with its ID, by start.
    private static func activities(of device: DeviceRegistry.Device) -> [(device: String, activity: LiveActivity)] {
        device.activities.values.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }.map { (device.descriptor.id, $0) }
    }

    func refuse(_ refused: DeviceLinkMessage.InstallRefused, device: String) {
        perform { $0.refuse(refused, device: device) }
    }

    func unregister(_ token: DeviceToken, device: String, at date: Date) {
        perform { $0.unregister(token, device: device, at: date) }
    }

    /// A page of the token table in hex order: at most `limit` after `after`, and whether more follow.
    func tokens(after: DeviceToken?, limit: Int) -> (page: [World.TokenRecord], more: Bool) {
        // Read from the validator's copy, outside the registry's lock: a page of a million tokens is a pass over them.
        let records = registry.snapshot.tokens.page(after: after, limit: limit + 1)  // one more: whether a page follows
        return (Array(records.prefix(limit)), records.count > limit)
    }

    func link(of id: String) -> DeviceSession? {
        registry.inspect { $0.link(of: id) }
    }

    func registration(of device: String, bundleID: String) -> DeviceLinkMessage.Registered? {
        registry.inspect { $0.registration(of: device, bundleID: bundleID) }
    }

    /// Puts the world back as loaded (devices keep their tokens) and drops every held push (`POST /v1/reset`).
    func reset() {
        perform { $0.reset() }
    }

    func route(_ plan: PushPlan, apnsID: String, uniqueID: String? = nil, payload: String, now: Date) {
        perform { $0.route(plan, apnsID: apnsID, uniqueID: uniqueID, payload: payload, newID: newID, now: now) }
    }

    func acknowledged(_ ack: DeviceLinkMessage.Ack, at date: Date) {
        perform { $0.acknowledged(ack, at: date) }
    }

    /// What a device did with a push. An activity a push started comes without a push token: it gets one here, as
    /// iOS gives one to an activity started by push (`Activity.pushTokenUpdates`), and the device is told; one the push
    /// subscribed to a channel (`input-push-channel`) gets none, and the channel's stored message if there is one.
    func receipt(_ receipt: ReceivedReceipt, device: String, at date: Date) {
        let token = newToken(for: receipt)
        perform { Self.take(receipt, device: device, token: token, at: date, newID: newID, in: &$0) }
    }

    /// The receipts a device process sent for pushes carried to its devices (``DeviceLinkMessage.ToDevice/Carry``), taken
    /// together under one lock. Returns the first device named that does not run in process `host`; then none is taken.
    func receipts(_ receipts: [CarriedReceivedReceipt], host: String?, at date: Date) -> String? {
        let tokens = receipts.map { newToken(for: $0.receipt) }
        var stranger: String?
        perform { registry in
            if let outsider = receipts.first(where: { host == nil || registry.host(of: $0.device) != host }) {
                stranger = outsider.device
                return nil
            }
            var actions = DeviceRegistry.Actions()
            for (carried, token) in zip(receipts, tokens) {
                actions.append(Self.take(carried.receipt, device: carried.device, token: token, at: date, newID: newID, in: &registry))
            }
            return actions
        }
        return stranger
    }

    /// A push token for the activity `receipt` says a push started, when it needs one (not one on a channel).
    private func newToken(for receipt: ReceivedReceipt) -> DeviceToken? {
        guard let started = receipt.activity, started.pushToken == nil, started.channelID == nil else { return nil }
        return deliveryIDs.withLock { $0.token() }
    }

    private static func take(_ receipt: ReceivedReceipt, device: String, token: DeviceToken?, at date: Date, newID: () -> String,
                             in registry: inout DeviceRegistry) -> DeviceRegistry.Actions {
        guard var started = receipt.activity, started.pushToken == nil else { return registry.receipt(receipt, device: device, at: date) }
        started.pushToken = token
        let isNew = registry.inPlace(device) { $0.activities.index(forKey: started.id) == nil } ?? true
        var actions = registry.receipt(receipt, device: device, at: date)
        if isNew, let app = registry.registration(of: device, bundleID: started.bundleID) {
            actions.append(registry.startActivity(started, environment: app.environment, device: device,
                                                  tellDevice: started.channelID == nil, newID: newID, now: date))
        }
        return actions
    }
}
