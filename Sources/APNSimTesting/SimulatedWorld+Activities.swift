import APNSimRules
import APNSimGateway
import Foundation

extension SimulatedWorld {
    /// An app on `device` starts a Live Activity, as `Activity.request` does; returns it with its push token (`pushToken`),
    /// which ``send(_:to:topic:pushType:environment:headers:)`` updates it through (`pushType: "liveactivity"`,
    /// `topic: APP.push-type.liveactivity`). Throws a sentence when the device, the app or the type will not have it.
    /// `start`: a time to come on the world's clock schedules it (iOS 26): returned with no token, it starts once
    /// ``advance(by:)`` passes its start (``activities(device:app:)`` then lists it with its token).
    public func startActivity(device: String, app: String, type: String, attributes: [String: JSONValue] = [:],
                              contentState: [String: JSONValue], start: Date? = nil) throws -> LiveActivity {
        do {
            return try gateway.startActivity(device: device, app: app, type: type, attributes: attributes, contentState: contentState,
                                             start: start)
        } catch {
            throw SimulatedWorldError("\(error)")
        }
    }

    /// The Live Activities on `device` (of `app`, when given), oldest first, as the gateway last heard of them.
    public func activities(device: String, app: String? = nil) -> [LiveActivity] {
        gateway.activities.filter { $0.device == device && (app == nil || $0.activity.bundleID == app) }.map(\.activity)
    }

    /// The Live Activity `id`, as it is now; `nil` when no device has it.
    public func activity(_ id: String) -> LiveActivity? {
        gateway.activities.first { $0.activity.id == id }?.activity
    }
}
