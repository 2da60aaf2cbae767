import APNSimCore
import Foundation
import APNSimStore
import Synchronization

/// Which devices exist, which are online, which tokens they own, and the pushes waiting for them (``HeldPushes``,
/// APNs' store-and-forward, whose rules it applies: it sends on the device links and persists what they return).
/// Registrations and held pushes are written to the store as they change (``persist``), and a gateway started on a
/// store file picks them up again (``restore(_:world:)``), so a restart loses no pending push.
final class DeviceDirectory: Sendable {
    struct Device: Sendable {
        var descriptor: DeviceDescriptor
        var session: DeviceSession?
        /// Offline on request (`POST /v1/devices/{id}/offline`): the link stays up but is parked, and pushes
        /// are stored as for a device out of reach.
        var forcedOffline = false
        var parked: DeviceSession?
        var registrations: [DeviceToken: DeviceLinkMessage.Registered] = [:]
        /// Apps the device would not install, by bundle ID, with iOS's reason; gone once the app registers.
        var refusals: [String: DeviceLinkMessage.InstallRefused] = [:]
        /// Each app's icon badge as the device last reported it, by bundle ID; absent: none.
        var badges: [String: Int] = [:]
    }

    private struct State: Sendable {
        var devices: [String: Device] = [:]
        var ownership = TokenOwnership()
        var held = HeldPushes()
    }

    private let state = Mutex(State())
    private let persist: @Sendable (DeliveryEvent) -> Void
    /// Counts what changes in `GET /v1/devices` (online, apps, refusals, badges), for the inbox.
    let revisions: ChangeCounter

    init(persist: @escaping @Sendable (DeliveryEvent) -> Void = { _ in }, changes: ChangeSignal? = nil) {
        self.persist = persist
        self.revisions = ChangeCounter(signalling: changes)
    }

    private func changed() { revisions.bump() }

    /// Takes back what a previous run of the gateway left in the store, its tokens into `world` too (a removed app's
    /// answering 410 from when it was removed).
    func restore(_ saved: (registrations: [DeviceRegistration], held: [HeldPush]), world: WorldRegistry) {
        world.update { world in
            for saved in saved.registrations {
                let registered = DeviceLinkMessage.Registered(bundleID: saved.bundleID, environment: saved.environment, token: saved.token)
                world.tokens[saved.token] = .init(registered, unregisteredFrom: saved.unregisteredFrom)
            }
        }
        state.withLock { state in
            for registration in saved.registrations where registration.unregisteredFrom == nil {
                state.devices[registration.device.id, default: Device(descriptor: registration.device)].registrations[registration.token] =
                    .init(bundleID: registration.bundleID, environment: registration.environment, token: registration.token)
            }
            state.ownership.restore(saved.registrations)
            state.held.restore(saved.held)
        }
    }

    var devices: [Device] {
        state.withLock { Array($0.devices.values).sorted { $0.descriptor.id < $1.descriptor.id } }
    }

    func owner(of token: DeviceToken) -> String? {
        state.withLock { $0.ownership.owner(of: token) }
    }

    /// Puts the tokens devices hold back into `world` (after `POST /v1/reset` put the world back as it was loaded:
    /// devices still registered keep their tokens).
    func restoreTokens(in world: WorldRegistry) {
        let registered = state.withLock { $0.devices.values.flatMap { $0.registrations.values } }
        world.update { world in
            for registration in registered { world.tokens[registration.token] = .init(registration) }
        }
    }

    /// The device `token`'s app was removed from, when no device owns it now.
    func formerOwner(of token: DeviceToken) -> TokenOwnership.FormerOwner? {
        state.withLock { $0.ownership.formerOwner(of: token) }
    }

    /// A device said hello on `session`. It is online unless it was taken offline on request; coming online,
    /// it gets what waits for it (``arrive(_:in:now:)``).
    func attach(_ session: DeviceSession, now: Date) {
        let waiting = state.withLock { state -> [DeviceLinkMessage.Delivery] in
            let id = session.descriptor.id
            state.devices[id, default: Device(descriptor: session.descriptor)].descriptor = session.descriptor
            if state.devices[id]?.forcedOffline == true {
                state.devices[id]?.parked = session
                return []
            }
            state.devices[id]?.session = session
            return arrive(id, in: &state, now: now)
        }
        for delivery in waiting { session.send(.push(delivery)) }
        changed()
    }

    /// Takes a device offline (its link is parked) or back online (and it gets what waits for it).
    /// Returns `false` when no such device exists.
    func setOffline(_ id: String, _ offline: Bool, now: Date) -> Bool {
        let result = state.withLock { state -> (DeviceSession?, [DeviceLinkMessage.Delivery])? in
            guard var device = state.devices[id] else { return nil }
            device.forcedOffline = offline
            if offline {
                device.parked = device.session ?? device.parked
                device.session = nil
            } else {
                device.session = device.parked ?? device.session
                device.parked = nil
            }
            state.devices[id] = device
            guard !offline, let session = device.session else { return (nil, []) }
            return (session, arrive(id, in: &state, now: now))
        }
        guard let (session, waiting) = result else { return false }
        for delivery in waiting { session?.send(.push(delivery)) }
        changed()
        return true
    }

    /// What device `id` gets on coming online (``HeldPushes/arrive(_:now:)``), its record persisted.
    private func arrive(_ id: String, in state: inout State, now: Date) -> [DeviceLinkMessage.Delivery] {
        let (send, events) = state.held.arrive(id, now: now)
        events.forEach(persist)
        return send
    }

    /// The link of `session` ended; its device is offline unless a newer link already replaced it.
    func detach(_ session: DeviceSession) {
        state.withLock { state in
            let id = session.descriptor.id
            if state.devices[id]?.session?.isSameLink == session.isSameLink {
                state.devices[id]?.session = nil
            }
            if state.devices[id]?.parked?.isSameLink == session.isSameLink {
                state.devices[id]?.parked = nil
            }
        }
        changed()
    }

    /// Device `device` registered an app: it owns the token from now on, and `world` has it, with the app (of
    /// `team`, when the world does not know the app yet). DeviceDirectory is the one writer of devices' tokens into
    /// the world; the validator reads them there.
    func register(_ registered: DeviceLinkMessage.Registered, device: String, team: String?, in world: WorldRegistry) {
        world.update { world in
            if world.apps[registered.bundleID] == nil, let team {
                world.apps[registered.bundleID] = .init(bundleID: registered.bundleID, team: team)
            }
            world.tokens[registered.token] = .init(registered)
        }
        state.withLock { state in
            state.devices[device]?.registrations[registered.token] = registered
            state.devices[device]?.refusals[registered.bundleID] = nil
            state.ownership.registered(registered.token, device: device)
            if let descriptor = state.devices[device]?.descriptor {
                persist(.registered(DeviceRegistration(token: registered.token, device: descriptor,
                                                       bundleID: registered.bundleID, environment: registered.environment)))
            }
        }
        changed()
    }

    /// An app's icon badge changed (a receipt or a registration said so); 0 removes it.
    func setBadge(_ count: Int, bundleID: String, device: String) {
        state.withLock { $0.devices[device]?.badges[bundleID] = count == 0 ? nil : count }
        changed()
    }

    /// The device would not install an app (its profile, entitlement or extension was refused).
    func refuse(_ refused: DeviceLinkMessage.InstallRefused, device: String) {
        state.withLock { $0.devices[device]?.refusals[refused.bundleID] = refused }
        changed()
    }

    /// The app of `token` was removed: the device no longer owns it, and in `world` it answers 410 from `date`
    /// on (kept in the store for restarts).
    func unregister(_ token: DeviceToken, device: String, at date: Date, in world: WorldRegistry) {
        state.withLock { state in
            guard let removed = state.devices[device]?.registrations.removeValue(forKey: token) else { return }
            state.ownership.removed(token, bundleID: removed.bundleID, from: device, at: date)
            persist(.unregistered(token: token, at: date))
        }
        world.unregister(token, at: date)
        changed()
    }

    /// The session of a device that is online, or parked offline, for messages that are not pushes.
    func link(of id: String) -> DeviceSession? {
        state.withLock { $0.devices[id].flatMap { $0.session ?? $0.parked } }
    }

    func registration(of device: String, bundleID: String) -> DeviceLinkMessage.Registered? {
        state.withLock { $0.devices[device]?.registrations.values.first { $0.bundleID == bundleID } }
    }

    /// Drops every held push (`POST /v1/reset`).
    func releaseAll() {
        state.withLock { $0.held.releaseAll().forEach(persist) }
    }

    /// Sends `delivery` to device `id` (the owner of its token, ``owner(of:)``), or stores it while that
    /// device is offline.
    func route(_ delivery: DeviceLinkMessage.Delivery, to id: String, expiration: PushPlan.Expiration, now: Date) -> HeldPushes.Routing {
        let (routing, session) = state.withLock { state -> (HeldPushes.Routing, DeviceSession?) in
            let session = state.devices[id]?.session
            let (routing, events) = state.held.route(delivery, to: id, online: session != nil, expiration: expiration, now: now)
            events.forEach(persist)
            return (routing, session)
        }
        if routing == .sent { session?.send(.push(delivery)) }
        return routing
    }

    /// The device has the push; stop holding it.
    func acknowledge(_ id: String) {
        state.withLock { $0.held.acknowledge(id).forEach(persist) }
    }
}
