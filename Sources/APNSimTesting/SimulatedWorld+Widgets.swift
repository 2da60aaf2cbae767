import APNSimProvider
import APNSimRules
import Foundation

extension SimulatedWorld {
    /// The widget push token `app` has on `device` (its widgets take pushes: the world declares `widgets` for it), as hex.
    public func widgetToken(device: String, app: String) throws -> String {
        guard let token = try registered(device: device, app: app).widgetToken else {
            throw SimulatedWorldError("\(app) on \(device) has no widget push token: declare widgets (with kinds) for it in the world")
        }
        return token.hex
    }

    /// The push token of `app`'s control of `kind` on `device`, as hex.
    public func controlToken(device: String, app: String, kind: String) throws -> String {
        let registered = try registered(device: device, app: app)
        guard let token = registered.controlTokens?[kind] else {
            let kinds = registered.controlTokens?.keys.sorted().joined(separator: ", ") ?? ""
            throw SimulatedWorldError("\(app) on \(device) has no control \(kind)" + (kinds.isEmpty ? ": declare controls for it in the world" : "; it has \(kinds)"))
        }
        return token.hex
    }

    /// Sends a WidgetKit push as Apple's articles show it: `widgets` to `app`'s widget token, or `controls` to the token of
    /// its control `control`; `{"aps":{"content-changed":true}}`. Returns the gateway's answer; the delivery record
    /// (``delivery(apnsID:timeout:)``) says what was reloaded (`widgets`).
    public func reload(device: String, app: String, control: String? = nil) async throws -> ProviderResponse {
        let token = try control.map { try controlToken(device: device, app: app, kind: $0) } ?? widgetToken(device: device, app: app)
        let pushType = control == nil ? PushType.widgets : PushType.controls
        return try await send(#"{"aps":{"content-changed":true}}"#, to: token, topic: app + pushType.topicSuffix, pushType: pushType.rawValue)
    }

    private func registered(device: String, app: String) throws -> RegisteredApp {
        guard let registered = devices.first(where: { $0.descriptor.id == device })?.tokens.first(where: { $0.bundleID == app }) else {
            throw SimulatedWorldError("device \(device) has no token for \(app): the world declares no such device and app, or the device refused the app")
        }
        return registered
    }
}
