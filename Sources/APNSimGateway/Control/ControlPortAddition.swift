import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Hummingbird

/// A module on top of the gateway that serves more on its control port (APNSimInbox: the page, its composer, the
/// devices' attachment copies): it adds its routes to the control API's router, and is handed the attachment copies
/// devices send over the device link. The gateway knows nothing of what the addition shows.
public protocol ControlPortAddition: Sendable {
    /// Called once, as the gateway builds its control API; `gateway` is what the routes may read.
    func addRoutes(to router: Router<BasicRequestContext>, gateway: GatewayAccess)
    /// A device sent part of the copy of an attachment it shows (the device link's `attachmentCopy`,
    /// docs/device-link.md), on that link's event loop, in order; throwing drops the copy with the reason logged.
    func received(_ copy: DeviceLinkMessage.AttachmentCopy) throws
    /// Called once the gateway has stopped (its listeners closed, its record written): what the addition made only for
    /// this run, such as a temporary folder, goes now, since a process ending does not run its objects' `deinit`.
    func gatewayStopped()
}

extension ControlPortAddition {
    public func gatewayStopped() {}
}

/// What a ``ControlPortAddition`` may read of the running gateway.
public struct GatewayAccess: Sendable {
    let api: ControlAPI

    /// The port of the provider API for each environment.
    public var providerPorts: [APNsEnvironment: Int] { api.providerPorts }

    /// Whether the gateway has seen device `id`.
    public func hasDevice(_ id: String) -> Bool { api.devices.devices.contains { $0.descriptor.id == id } }

    /// The token device `id` registered for `bundleID`, and its environment; `nil` when it has none.
    public func registration(device id: String, bundleID: String) -> (token: DeviceToken, environment: APNsEnvironment)? {
        api.devices.registration(of: id, bundleID: bundleID).map { ($0.token, $0.environment) }
    }

    /// The team the world says `bundleID` belongs to.
    public func team(of bundleID: String) -> String? { api.world.read { $0.apps[bundleID]?.team } }

    /// The record of the provider request the gateway answered with `apnsID`, once written.
    public func send(apnsID: String) async throws -> SendRecord? {
        try await api.recorder.flush()
        return try await api.store.sends(matching: SendFilter(apnsID: apnsID, limit: 1)).first
    }
}
