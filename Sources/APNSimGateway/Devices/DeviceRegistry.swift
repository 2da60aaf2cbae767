import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation

/// The one owner of apps, tokens and devices, as a value: the world as declared (apps, keys, teams, channels), the one
/// token table (every token, the world's and those devices hold, each with its kind and the device that holds it or
/// last did), which devices exist and are online, and the pushes held for devices (``HeldPushes``).
///
/// Every change is an event (a device attached, an app registered or removed, a push routed or acknowledged, a
/// reset) that returns what to do about it (``Actions``): messages for device links, records to persist in order,
/// whether `GET /v1/devices` changed. It does no I/O; ``WorldRegistry`` keeps it under one lock and
/// ``DeviceDirectory`` carries out its actions, so the validator and the router can never disagree about a token.
/// Unit tests drive it with plain values.
struct DeviceRegistry: Sendable {
    struct Device: Sendable {
        var descriptor: DeviceDescriptor
        /// The process it runs in, as its last `hello` said (``DeviceSession/host``).
        var host: String?
        var session: DeviceSession?
        /// When its current link (or its session on a shared one) came up; `nil` while it has none.
        var linkedAt: Date?
        /// Offline on request (`POST /v1/devices/{id}/offline`): the link stays up but is parked, and pushes
        /// are stored as for a device out of reach.
        var forcedOffline = false
        var parked: DeviceSession?
        /// The tokens it holds (its apps', their push-to-start tokens, its activities'), oldest first: an index into
        /// the token table, which says what each is. Kept only by ``DeviceRegistry/hold(_:by:)`` and
        /// ``DeviceRegistry/retire(_:from:at:)``.
        var tokens: [DeviceToken] = []
        /// Apps the device would not install, by bundle ID, with iOS's reason; gone once the app registers.
        var refusals: [String: DeviceLinkMessage.InstallRefused] = [:]
        /// Each app's icon badge as the device last reported it, by bundle ID; absent: none.
        var badges: [String: Int] = [:]
        /// The device's Live Activities by ID, as it last reported each (`GET /v1/activities`): its `activities`
        /// reports and its receipts. The registry never changes one by a rule of its own; it adds one it started or
        /// gave a token to, until the device reports it.
        var activities: [String: LiveActivity] = [:]
        /// Each app's activity IDs in the order the device shows them (its last `activities` report), by bundle ID; one
        /// added since goes last until the next report.
        var activityOrder: [String: [String]] = [:]
        /// Each app's Live Activity budget as the device last reported it, by bundle ID.
        var activityBudgets: [String: ActivityBudget.Report] = [:]
        /// When a push last reloaded the widgets or the control of each of its widget and control tokens, from the
        /// device's receipts (`GET /v1/devices`, the inbox).
        var widgetReloads: [DeviceToken: Date] = [:]
        /// Live Activities its apps scheduled to start later, by ID, until they start (DeviceRegistry+Scheduled.swift).
        var scheduled: [String: ScheduledActivity] = [:]
        /// The user's Focus and Scheduled Summary as set through the gateway (``setFocus(_:of:)``): shown by
        /// `GET /v1/devices`, and sent again each time the device links, as iOS keeps them across restarts.
        var focus: Focus?
        var summary: ScheduledSummary?
        /// In Low Power Mode (`POST /v1/devices/{id}/low-power`): APNs stores its priority-5 pushes "for power
        /// considerations" until it leaves it, and sends priority-10 ones at once.
        var lowPowerMode = false
        /// Apps whose notifications the user turned off in Settings: their alerts are discarded (the Console's
        /// "disabled by the user").
        var notificationsOff: Set<String> = []
        /// What its apps did while it had no link, which it is told first when it links again, in order: an app
        /// ending its Live Activity (``DeviceRegistry/endActivity(_:contentState:dismissal:at:)``), shown as pending
        /// until the device reports the activity again. Kept in memory: a
        /// gateway that restarts before the device links loses them (docs/devices.md, "Live Activities").
        var waiting: [DeviceLinkMessage.ToDevice] = []
    }

    /// A device as those outside the registry read it: the device, and its apps as the token table has them.
    @dynamicMemberLookup
    struct Listed: Sendable {
        var device: Device
        /// Its registered apps by bundle ID: each one's device token and push-to-start tokens.
        var apps: [DeviceLinkMessage.Registered]

        subscript<Value>(dynamicMember path: KeyPath<Device, Value>) -> Value { device[keyPath: path] }
    }

    /// What an event asks for.
    struct Actions: Sendable {
        /// Messages for device links, sent after the event (outside the lock).
        var send: [(session: DeviceSession, message: DeviceLinkMessage.ToDevice)] = []
        /// Records for the store, in the order they happened (persisted under the lock, so no other event's records
        /// come between them).
        var persist: [DeliveryEvent] = []
        /// Whether what `GET /v1/devices` shows changed (online, apps, refusals, badges).
        var devicesChanged = false

        /// `other`'s actions after these.
        mutating func append(_ other: Actions) {
            send += other.send
            persist += other.persist
            devicesChanged = devicesChanged || other.devicesChanged
        }
    }

    /// Where a token's app was until it was removed: a push the gateway still accepts for it (within the uninstall
    /// delay) gets a delivery record saying so, not silence.
    struct FormerHolder: Sendable, Hashable {
        var device: String
        var bundleID: String
        /// When the app was removed; the token answers 410 from then on (plus the gateway's uninstall delay).
        var removedAt: Date
    }

    /// Where an accepted push goes.
    enum Destination: Sendable, Equatable {
        case device(String)
        /// No device holds the token now; its app was removed from this one.
        case removed(FormerHolder)
        /// No device ever owned it here: a token the world file declares, accepted and shown nowhere.
        case none
    }

    /// The world as declared: its apps, keys, teams and channels. Its tokens are in ``tokens``.
    /// Changed only by the registry's events, here and in `DeviceRegistry+Tokens.swift`.
    var world: World {
        didSet { worldRevision &+= 1 }
    }
    /// The one token table: each token the world declares and each a device holds, with its app, environment, state,
    /// kind and holder. The validator reads it (in ``validated``), the router asks it where a push goes.
    /// Changed only by the registry's events, here and in `DeviceRegistry+Tokens.swift`.
    var tokens: TokenTable {
        didSet { worldRevision &+= 1 }
    }
    /// Counts changes to ``world`` and ``tokens``, so their holder drops the validator's copy only when they changed.
    private(set) var worldRevision = 0
    /// The world as it was loaded, its declared tokens with it, for a reset.
    private let loaded: World
    /// Changed only by the registry's events, here and in `DeviceRegistry+Channels.swift`.
    var devices: [String: Device] = [:]
    var held = HeldPushes()
    /// This replica's name when replicas share the store (docs/cluster.md); `nil` for the only gateway.
    var replica: String? {
        didSet { held.storedInStore = replica != nil }
    }
    /// The devices linked to other replicas, by ID, as the store last told (``DeviceRegistry/linked(_:at:now:)``).
    var elsewhere: [String: String] = [:]
    /// The devices whose last link, as the store told, was to another replica: linked there now, or since gone out of
    /// reach from there. That replica fans broadcasts out to their Live Activities (docs/cluster.md, "Broadcasts across
    /// replicas"); what this one knows of them is as old as their last link here.
    var departed: Set<String> = []
    /// The latest message of each channel with storage (`message-storage-policy` 1), for activities that subscribe later.
    var storedBroadcasts: [String: StoredBroadcast] = [:]

    init(world: World) {
        self.tokens = world.tokens
        self.loaded = world
        self.world = world
        self.world.tokens = TokenTable()
    }

    /// What the validator reads: the world as declared, with the token table as its tokens.
    var validated: World {
        var world = world
        world.tokens = tokens
        return world
    }

    // MARK: - The world

    /// Changes the world's apps, keys or teams (the control API's world routes).
    mutating func changeWorld<T>(_ body: (inout World) throws -> T) rethrows -> sending T {
        try body(&world)
    }

    /// Puts the world back as it was loaded and drops every held push. Devices still registered keep their tokens:
    /// a reset forgets what happened, not who is there.
    mutating func reset() -> Actions {
        resetWorld()
        storedBroadcasts.removeAll()
        return Actions(persist: held.releaseAll())
    }

    /// Puts the world back as it was loaded: its declared tokens, and the tokens devices hold now, active again (a
    /// removed app's are forgotten).
    mutating func resetWorld() {
        // Channels stay, as devices' tokens do: activities are subscribed to them. Their stored messages go with the held pushes.
        let channels = world.channels
        let heldNow = devices.values.flatMap { device in device.tokens.compactMap { tokens[$0] } }
        world = loaded
        world.tokens = TokenTable()
        world.channels = channels
        tokens = loaded.tokens
        for var record in heldNow {
            (record.state, record.invalidSince) = (.active, nil)
            tokens[record.token] = record
        }
    }

    /// Takes back what a previous run of the gateway left in the store: registrations (their tokens, a removed app's
    /// answering 410 from when it was removed) and held pushes.
    mutating func restore(_ saved: RestartState) {
        for saved in saved.registrations {
            let record = World.TokenRecord(token: saved.token, bundleID: saved.bundleID, environment: saved.environment, kind: .device)
            if let removedAt = saved.unregisteredFrom {
                // A token held by a device now stays with it; the store's removal is of an earlier holder.
                guard tokens[saved.token]?.holder?.device == nil else { continue }
                var removed = record
                (removed.state, removed.invalidSince, removed.holder) = (.unregistered, removedAt, .removed(from: saved.device.id, at: removedAt))
                tokens[saved.token] = removed
            } else {
                if devices[saved.device.id] == nil { devices[saved.device.id] = Device(descriptor: saved.device) }
                hold(record, by: saved.device.id)
            }
        }
        held.restore(saved.held)
    }

    // MARK: - Devices and their apps

    /// A device said hello on `session`. It is online unless it was taken offline on request; coming online, it gets
    /// what waits for it.
    mutating func attach(_ session: DeviceSession, now: Date) -> Actions {
        let id = session.descriptor.id
        devices[id, default: Device(descriptor: session.descriptor)].descriptor = session.descriptor
        devices[id]?.host = session.host
        devices[id]?.linkedAt = now
        var actions = Actions(devicesChanged: true)
        if let replica {
            elsewhere[id] = nil
            departed.remove(id)
            actions.persist.append(.linked(device: id, replica: replica, at: now))
        }
        // What its apps did while it was out of reach comes first: an ended activity ignores the pushes held for it.
        if let waiting = devices[id]?.waiting, !waiting.isEmpty {
            actions.send += waiting.map { (session, $0) }
            devices[id]?.waiting = []
        }
        if devices[id]?.forcedOffline == true {
            devices[id]?.parked = session
            return actions
        }
        devices[id]?.session = session
        arrive(id, over: session, now: now, into: &actions)
        return actions
    }

    /// The link of `session` ended; its device is offline unless a newer link already replaced it. Pushes it carried
    /// for other devices of its process that have not answered go to each of them on its own link (or wait for it).
    mutating func detach(_ session: DeviceSession) -> Actions {
        let id = session.descriptor.id
        if devices[id]?.session?.isSameLink == session.isSameLink { devices[id]?.session = nil }
        if devices[id]?.parked?.isSameLink == session.isSameLink { devices[id]?.parked = nil }
        var actions = Actions(devicesChanged: true)
        if devices[id]?.session == nil, devices[id]?.parked == nil {
            devices[id]?.linkedAt = nil
            if let replica { actions.persist.append(.unlinked(device: id, replica: replica)) }
            if elsewhere[id] != nil { departed.insert(id) }  // it linked there before its link here ended
        }
        for (device, delivery) in held.uncarry(by: id) {
            if let link = devices[device]?.session { actions.send.append((link, .push(delivery))) }
        }
        return actions
    }

    /// Takes a device offline (its link is parked) or back online (and it gets what waits for it); `nil` when no
    /// such device exists.
    /// The user turns a Focus on (or off, `nil`) on connected device `id`; `nil` when it is not connected.
    mutating func setFocus(_ focus: Focus?, of id: String) -> Actions? {
        guard let session = devices[id]?.session else { return nil }
        devices[id]?.focus = focus
        return Actions(send: [(session, .focus(.init(focus: focus)))], devicesChanged: true)
    }

    /// The user sets a Scheduled Summary (or turns it off, `nil`) on connected device `id`; `nil` when it is not connected.
    mutating func setSummary(_ summary: ScheduledSummary?, of id: String) -> Actions? {
        guard let session = devices[id]?.session else { return nil }
        devices[id]?.summary = summary
        return Actions(send: [(session, .summary(.init(summary: summary)))], devicesChanged: true)
    }

    /// Device `id` enters Low Power Mode, or leaves it (then what was stored for it goes); `nil` when it is not known.
    mutating func setLowPowerMode(_ on: Bool, of id: String, now: Date) -> Actions? {
        guard devices[id] != nil else { return nil }
        devices[id]?.lowPowerMode = on
        var actions = Actions(devicesChanged: true)
        if !on, let session = devices[id]?.session { arrive(id, over: session, now: now, into: &actions) }
        return actions
    }

    /// The user turns notifications of app `bundleID` on device `id` off (or on again); `nil` when the device is not known.
    mutating func setNotifications(_ on: Bool, of bundleID: String, on id: String) -> Actions? {
        guard devices[id] != nil else { return nil }
        if on { devices[id]?.notificationsOff.remove(bundleID) } else { devices[id]?.notificationsOff.insert(bundleID) }
        return Actions(devicesChanged: true)
    }

    mutating func setOffline(_ id: String, _ offline: Bool, now: Date) -> Actions? {
        guard var device = devices[id] else { return nil }
        device.forcedOffline = offline
        if offline {
            device.parked = device.session ?? device.parked
            device.session = nil
        } else {
            device.session = device.parked ?? device.session
            device.parked = nil
        }
        devices[id] = device
        var actions = Actions(devicesChanged: true)
        if !offline, let session = device.session { arrive(id, over: session, now: now, into: &actions) }
        return actions
    }

    /// What device `id` gets on coming online (``HeldPushes/arrive(_:now:)``), its record persisted.
    private mutating func arrive(_ id: String, over session: DeviceSession, now: Date, into actions: inout Actions) {
        // The user's settings first, so pushes held for the device meet its Focus and summary.
        if let focus = devices[id]?.focus { actions.send.append((session, .focus(.init(focus: focus)))) }
        if let summary = devices[id]?.summary { actions.send.append((session, .summary(.init(summary: summary)))) }
        let (waiting, events) = held.arrive(id, now: now)
        actions.persist += events
        actions.send += waiting.map { (session, .push($0)) }
        // What any replica stored for it is handed here from the store (docs/cluster.md, "One stored push per app").
        if let replica { actions.persist.append(.storedClaimed(device: id, replica: replica)) }
    }

    /// Device `device` registered an app: it owns the token from now on, and the world has it, with the app (of
    /// `team`, when the world does not know the app yet); `badge` is the app's icon badge as the device has it.
    /// The app's Live Activities the registry knows (from a report sent before this registration) hold their tokens
    /// in its environment from now on.
    mutating func register(_ registered: DeviceLinkMessage.Registered, device: String, team: String?, badge: Int? = nil) -> Actions {
        if world.apps[registered.bundleID] == nil, let team {
            world.apps[registered.bundleID] = .init(bundleID: registered.bundleID, team: team)
        }
        hold(.init(token: registered.token, bundleID: registered.bundleID, environment: registered.environment, kind: .device), by: device)
        // An earlier push-to-start token of a type stays good; the app's registration shows the newest.
        for (type, startToken) in registered.pushToStartTokens?.sorted(by: { $0.key < $1.key }) ?? [] {
            hold(.init(token: startToken, bundleID: registered.bundleID, environment: registered.environment,
                       kind: .pushToStart(activityType: type)), by: device)
        }
        if let widgetToken = registered.widgetToken {
            hold(.init(token: widgetToken, bundleID: registered.bundleID, environment: registered.environment, kind: .widgets(kinds: registered.widgetKinds ?? [])), by: device)
        }
        for (kind, controlToken) in registered.controlTokens?.sorted(by: { $0.key < $1.key }) ?? [] {
            hold(.init(token: controlToken, bundleID: registered.bundleID, environment: registered.environment, kind: .control(kind: kind)),
                 by: device)
        }
        devices[device]?.refusals[registered.bundleID] = nil
        devices[device]?.badges[registered.bundleID] = badge == 0 ? nil : badge
        for activity in devices[device]?.activities.values.filter({ $0.bundleID == registered.bundleID }) ?? [] {
            holdToken(of: activity, environment: registered.environment, device: device)
        }
        var actions = Actions(devicesChanged: true)
        if let descriptor = devices[device]?.descriptor {
            actions.persist.append(.registered(DeviceRegistration(token: registered.token, device: descriptor,
                                                                  bundleID: registered.bundleID, environment: registered.environment)))
        }
        return actions
    }

    /// The app of `token` was removed from `device`: the device no longer holds it, and it answers 410 from `date` on.
    /// `record`: whether the removal is written (`false`: another replica wrote it, ``removedElsewhere(_:)``).
    mutating func unregister(_ token: DeviceToken, device: String, at date: Date, record: Bool = true) -> Actions {
        guard let removed = tokens[token], removed.kind == .device, removed.holder?.device == device else { return Actions() }
        // The app's push-to-start tokens and its activities go with it, and their tokens answer 410 as its own does.
        for record in records(heldBy: device, bundleID: removed.bundleID) {
            retire(record.token, from: device, at: date)
        }
        devices.inPlace(device) {
            $0.activities = $0.activities.filter { $0.value.bundleID != removed.bundleID }
            $0.activityOrder[removed.bundleID] = nil
        }
        return Actions(persist: record ? [.unregistered(token: token, at: date)] : [], devicesChanged: true)
    }

    /// An app on `device` starts a Live Activity (the control API's `Activity.request`): its push token is the app's, in
    /// the app's environment, owned by the device; the device is told to start it.
    /// One subscribed to a broadcast channel has no token; it gets the channel's stored message, if there is one.
    mutating func startActivity(_ activity: LiveActivity, environment: APNsEnvironment, device: String, tellDevice: Bool = true,
                                newID: () -> String = { "" }, now: Date = Date()) -> Actions {
        guard devices[device] != nil else { return Actions() }
        hold(activity, environment: environment, device: device)
        var actions = Actions(devicesChanged: true)
        if tellDevice, let link = link(of: device) { actions.send.append((link, .startActivity(.init(activity: activity)))) }
        if activity.channelID != nil { actions.append(subscribed(activity, device: device, newID: newID, now: now)) }
        return actions
    }

    /// `device` has `activity`, and holds its push token, active in the app's environment; one new to the app's order
    /// goes last in it.
    private mutating func hold(_ activity: LiveActivity, environment: APNsEnvironment, device: String) {
        holdToken(of: activity, environment: environment, device: device)
        devices.inPlace(device) { device in
            if device.activities.updateValue(activity, forKey: activity.id) == nil {
                device.activityOrder[activity.bundleID, default: []].append(activity.id)
            }
        }
    }

    /// `device` holds `activity`'s push token (if it has one), active in the app's environment.
    private mutating func holdToken(of activity: LiveActivity, environment: APNsEnvironment, device: String) {
        guard let token = activity.pushToken else { return }
        hold(.init(token: token, bundleID: activity.bundleID, environment: environment, kind: .activity(id: activity.id)), by: device)
    }

    /// Device `device` reported an app's Live Activities (``DeviceLinkMessage/ActivityReport``): they replace the
    /// registry's copy of the app's, in the device's order. An activity's push token is the gateway's (it gave it), so
    /// one the device has not been told yet is kept; tokens are held in the app's environment once it has registered.
    mutating func report(_ report: DeviceLinkMessage.ActivityReport, device: String) -> Actions {
        guard let known = devices[device]?.activities else { return Actions() }
        let environment = registration(of: device, bundleID: report.bundleID)?.environment
        var activities = known.filter { $0.value.bundleID != report.bundleID }
        for var activity in report.activities where activity.bundleID == report.bundleID {
            if activity.pushToken == nil, activity.channelID == nil { activity.pushToken = known[activity.id]?.pushToken }
            if let environment { holdToken(of: activity, environment: environment, device: device) }
            activities[activity.id] = activity
        }
        devices.inPlace(device) { device in
            device.activities = activities
            device.activityOrder[report.bundleID] = report.activities.filter { $0.bundleID == report.bundleID }.map(\.id)
        }
        return Actions(devicesChanged: true)
    }

    /// Where an app's end of its activity goes (``endActivity(_:contentState:dismissal:at:)``).
    enum ActivityEnd {
        /// To the device on this link now; it answers with the app's `activities`.
        case send(DeviceSession, DeviceLinkMessage.ToDevice, device: String)
        /// The device has no link: it is told first thing when it links again (``Device/waiting``).
        case waiting
        /// It was scheduled and had not started: it never will (``cancelScheduled(_:)``).
        case cancelled(LiveActivity, device: String)
    }

    /// An app ends its activity `id` (the control API's `Activity.end`): the device applies ActivityKit's rule and
    /// reports the activity as it is then; the registry changes nothing of it. The end goes to the device now, or,
    /// when it has no link, first thing when it links again: the app ended it on the device, which only learns of it
    /// through the gateway here. `nil` when no device has that activity.
    mutating func endActivity(_ id: String, contentState: [String: JSONValue]?, dismissal: Date?, at now: Date) -> ActivityEnd? {
        if let cancelled = cancelScheduled(id) { return cancelled }
        guard let device = devices.values.first(where: { $0.activities[id] != nil }),
              let bundleID = device.activities[id]?.bundleID else { return nil }
        let end = DeviceLinkMessage.ToDevice.endActivity(.init(id: id, bundleID: bundleID, contentState: contentState,
                                                               dismissalDate: dismissal, at: now))
        if let link = link(of: device.descriptor.id) { return .send(link, end, device: device.descriptor.id) }
        wait(end, for: device.descriptor.id)
        return .waiting
    }

    /// `message` goes to device `id` first thing when it links again.
    mutating func wait(_ message: DeviceLinkMessage.ToDevice, for id: String) {
        devices[id]?.waiting.append(message)
    }

    /// Each of `device`'s activities still on the Lock Screen at `now`, by ID: its place among its app's in the order the
    /// device last reported (1: the Dynamic Island). Only the dismissal dates the device reported decide which are still
    /// shown; the order is the device's.
    func displayRanks(of device: Device, at now: Date) -> [String: Int] {
        var ranks: [String: Int] = [:]
        for ids in device.activityOrder.values {
            let visible = ids.filter { device.activities[$0]?.isVisible(at: now) == true }
            for (index, id) in visible.enumerated() { ranks[id] = index + 1 }
        }
        return ranks
    }

    /// The activities whose end waits for their device to link (``Device/waiting``), by ID.
    func pendingEnds(of device: Device) -> Set<String> {
        Set(device.waiting.compactMap { message in
            guard case .endActivity(let end) = message else { return nil }
            return end.id
        })
    }

    /// The device would not install an app (its profile, entitlement or extension was refused).
    mutating func refuse(_ refused: DeviceLinkMessage.InstallRefused, device: String) -> Actions {
        devices[device]?.refusals[refused.bundleID] = refused
        return Actions(devicesChanged: true)
    }

    /// The session of a device that is online, or parked offline, for messages that are not pushes.
    func link(of id: String) -> DeviceSession? {
        devices[id].flatMap { $0.session ?? $0.parked }
    }

    /// What `read` makes of device `id`, read where it is stored: `devices[id]?.field` copies the whole ``Device``
    /// first (a dictionary's getter returns a copy, each of its fields retained and released again), which a broadcast
    /// did three times for each of its deliveries. `nil` when there is no such device.
    mutating func inPlace<Value>(_ id: String, _ read: (inout Device) -> Value) -> Value? {
        devices.inPlace(id, read)
    }

    /// Changes activity `id` of `device` in place; `false` when the device has no such activity.
    private mutating func changeActivity(_ id: String, on device: String, _ change: (inout LiveActivity) -> Void) -> Bool {
        inPlace(device) { device in
            guard let index = device.activities.index(forKey: id) else { return false }
            change(&device.activities.values[index])
            return true
        } ?? false
    }

    /// The process device `id` runs in (``Device/host``), read in place.
    mutating func host(of id: String) -> String? {
        inPlace(id) { $0.host } ?? nil
    }

    // MARK: - Pushes

    /// An accepted push: recorded and sent to the device that owns its token, or held for it, or recorded dropped
    /// (an app removed from its device within the uninstall delay, an offline device and `apns-expiration: 0`).
    /// A token no device owned (the world file's) is accepted and goes nowhere, with no record: apnsim keeps no
    /// delivery record where there is no device to deliver to.
    /// `newID` gives the delivery its ID, asked only when there is a record to write.
    mutating func route(_ plan: PushPlan, apnsID: String, uniqueID: String? = nil, payload: String, newID: () -> String,
                        now: Date) -> Actions {
        switch destination(of: plan.token) {
        case .none:
            return Actions()
        case .removed(let former):
            let told = tells(former, throughAnotherReplica: true)
            var record = Self.uninstalled(id: newID(), apnsID: apnsID, bundleID: plan.bundleID, token: plan.token, pushType: plan.pushType,
                                          former: former, acceptedAt: now, now: now, told: told)
            record.uniqueID = uniqueID
            return Actions(persist: [.accepted(record)] + (told ? learned(plan.token, from: former.device, at: now) : []))
        case .device(let device):
            let deliveryID = newID()
            let delivery = DeviceLinkMessage.Delivery(id: deliveryID, apnsID: apnsID, token: plan.token, bundleID: plan.bundleID,
                                                      pushType: plan.pushType, priority: plan.priority, collapseID: plan.collapseID,
                                                      payload: payload)
            return deliver(delivery, to: device, expiration: plan.expiration, uniqueID: uniqueID, now: now)
        }
    }

    /// Records `delivery` accepted for `device`, then sends it, holds it or records it dropped (``HeldPushes``).
    mutating func deliver(_ delivery: DeviceLinkMessage.Delivery, to device: String, expiration: PushPlan.Expiration,
                          uniqueID: String? = nil, now: Date) -> Actions {
        var actions = Actions()
        deliver(delivery, to: device, expiration: expiration, uniqueID: uniqueID, now: now, into: &actions)
        return actions
    }

    /// ``deliver(_:to:expiration:now:)`` adding to `actions`, as a broadcast does for each of its deliveries.
    /// A device with no link here that is linked to another replica gets it through that one (``handOff(_:to:at:expiration:uniqueID:now:recorded:hops:)``),
    /// unless `mayHandOff` is `false` (it was handed here, and on as far as it goes); `record`: whether to record it
    /// accepted (`false`: the record has it).
    mutating func deliver(_ delivery: DeviceLinkMessage.Delivery, to device: String, expiration: PushPlan.Expiration,
                          uniqueID: String? = nil, now: Date, record: Bool = true, mayHandOff: Bool = true, into actions: inout Actions) {
        if mayHandOff, let there = replicaElsewhere(of: device), link(of: device) == nil {
            actions.persist.append(handOff(delivery, to: device, at: there, expiration: expiration, uniqueID: uniqueID, now: now, recorded: !record))
            return
        }
        var accepted = DeliveryRecord(id: delivery.id, apnsID: delivery.apnsID, device: device, bundleID: delivery.bundleID,
                                      token: delivery.token.hex, pushType: delivery.pushType.rawValue, acceptedAt: now)
        accepted.uniqueID = uniqueID
        if record { actions.persist.append(.accepted(accepted)) }
        let (session, lowPower, off) = inPlace(device) { ($0.session, $0.lowPowerMode, $0.notificationsOff.contains(delivery.bundleID)) }
            ?? (nil, false, false)
        if off, delivery.pushType == .alert {
            actions.persist.append(.receipt(id: delivery.id, outcome: .dropped, content: nil,
                                            detail: "the user turned notifications off for \(delivery.bundleID) on device \(device); "
                                                + "APNs discards the alert", at: now))
            return
        }
        // Apple: in Low Power Mode a device takes priority-5 pushes later, "for power considerations".
        let heldForPower = session != nil && lowPower && delivery.priority == 5
        let routing = held.route(delivery, to: device, online: session != nil && !heldForPower, expiration: expiration, now: now,
                                 events: &actions.persist)
        if case .stored(let replaced) = routing {
            actions.persist.append(.stored(id: delivery.id, reason: heldForPower ? .power : .offline, at: now, replacing: replaced))
        }
        switch routing {
        case .sent:
            if let session { actions.send.append((session, .push(delivery))) }
        case .stored(let replaced?):
            actions.persist.append(.receipt(id: replaced, outcome: .dropped, content: nil,
                                            detail: HeldPush.replacedDetail(activity: delivery.activity != nil), at: now))
        case .stored:
            break
        case .dropped:
            actions.persist.append(.receipt(id: delivery.id, outcome: .dropped, content: nil,
                                            detail: delivery.activity == nil
                                                ? "the device was offline and apns-expiration was 0, so APNs does not store it"
                                                : "the device was offline and the broadcast is not stored (apns-expiration 0 or a channel without storage)",
                                            at: now))
        }
    }

    /// The device has the push. What it said is recorded before the push stops being held: a gateway killed between
    /// the two then sends the push again (the device answers with the same receipt) instead of losing its outcome. A
    /// pending ack says the push arrived and its receipt comes later (a service extension runs): it stays held
    /// until then (docs/device-link.md).
    mutating func acknowledged(_ ack: DeviceLinkMessage.Ack, at date: Date) -> Actions {
        var actions = Actions(persist: [.acknowledged(id: ack.id, at: date)])
        if ack.forgotten == true {
            actions.persist.append(.forgotten(id: ack.id, detail: "the gateway sent the push again and the device had answered it before, but no "
                                              + "kept that receipt (a device keeps its newest ones whole, docs/device-link.md); its first "
                                              + "receipt never reached this record", at: date))
        }
        if ack.pending != true { actions.persist += held.acknowledge(ack.id) }
        return actions
    }

    /// What device `device` did with a push: its record gets the outcome, the push is no longer held, and the app's
    /// badge is what the receipt says.
    mutating func receipt(_ receipt: ReceivedReceipt, device: String, at date: Date) -> Actions {
        var actions = Actions(persist: [.receipt(id: receipt.id, outcome: receipt.outcome, content: receipt.content,
                                                 detail: receipt.detail, at: date, extensionRun: receipt.extensionRun,
                                                 presentation: receipt.presentation,
                                                 activity: receipt.activityChange.map(ReceiptChange.init) ?? receipt.widgetReload.map(ReceiptChange.init))])
        actions.persist += held.acknowledge(receipt.id)
        if let budget = receipt.activityBudget {
            devices[device]?.activityBudgets[budget.bundleID] = budget
            actions.devicesChanged = true
        }
        if let reload = try? receipt.widgetReload?.decoded(), reload.result == .reloaded, let token = reloaded(reload, on: device) {
            devices[device]?.widgetReloads[token] = date
            actions.devicesChanged = true
        }
        if let activity = receipt.activity, changeActivity(activity.id, on: device, { $0 = activity }) {
            actions.devicesChanged = true
        }
        // A carried push's receipt says where its activity stands; the rest of it is as the registry has it.
        if let progress = receipt.activityProgress, changeActivity(progress.id, on: device, { $0.progress = progress }) {
            actions.devicesChanged = true
        }
        if let badge = receipt.badge {
            devices[device]?.badges[badge.bundleID] = badge.count == 0 ? nil : badge.count
            actions.devicesChanged = true
        }
        return actions
    }

    /// Apple: after an app is removed, APNs keeps accepting pushes to its token for a while before it answers 410;
    /// none reaches the device. One record, complete (as a receipt would leave it), rather than an insert and an update;
    /// also for a push another replica accepted and handed here after the removal (``take(_:now:)``).
    /// `told`: the push reached the device, which told APNs the app is gone (``UninstallDelay/untilDeviceTells``).
    static func uninstalled(id: String, apnsID: String, bundleID: String, token: DeviceToken, pushType: PushType,
                            former: FormerHolder, acceptedAt: Date, now: Date, told: Bool = false) -> DeliveryRecord {
        var record = DeliveryRecord(id: id, apnsID: apnsID, device: former.device, bundleID: bundleID, token: token.hex,
                                    pushType: pushType.rawValue, acceptedAt: acceptedAt)
        (record.outcome, record.detail, record.deliveredAt, record.displayedAt) = (.dropped, uninstalledDetail(former, told: told), now, now)
        return record
    }

    /// What the record says of a push accepted for an app removed from its device.
    static func uninstalledDetail(_ former: FormerHolder, told: Bool = false) -> String {
        guard former.removedAt == UninstallDelay.notLearned else {
            return "\(former.bundleID) was removed from device \(former.device) at \(former.removedAt.formatted(ControlJSON.dateStyle)); "
                + "APNs accepted the push within its uninstall delay, and no device shows it"
        }
        return "\(former.bundleID) was removed from device \(former.device); APNs accepts pushes to its token until the device "
            + "tells it the app is gone, and no device shows them"
            + (told ? ": this one reached the device, which told APNs, and the token answers 410 from now on" : " (the device is out of reach)")
    }

    /// Whether a push for the app removed from `former.device` tells APNs of the removal: APNs has not learned of it yet,
    /// and the push reaches the device (linked here, or with `throughAnotherReplica` to another replica), which has no
    /// such app.
    func tells(_ former: FormerHolder, throughAnotherReplica: Bool) -> Bool {
        former.removedAt == UninstallDelay.notLearned
            && (devices[former.device]?.session != nil || (throughAnotherReplica && replicaElsewhere(of: former.device) != nil))
    }

    /// The device an app was removed from told APNs (a push to `token` reached it): the token answers 410 from `date` on,
    /// the time the 410 gives. Nothing when APNs knew already.
    mutating func learned(_ token: DeviceToken, from device: String, at date: Date) -> [DeliveryEvent] {
        guard var record = tokens[token], record.holder == .removed(from: device, at: UninstallDelay.notLearned) else { return [] }
        (record.state, record.invalidSince, record.holder) = (.unregistered, date, .removed(from: device, at: date))
        tokens[token] = record
        return [.unregistered(token: token, at: date)]
    }
}
