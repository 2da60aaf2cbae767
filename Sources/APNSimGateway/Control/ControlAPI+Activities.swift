import APNSimCore
import Foundation
import Hummingbird

/// `POST /v1/devices/{id}/activities` (an app starts a Live Activity, as `Activity.request` does) and
/// `GET /v1/activities` (every device's activities).
extension ControlAPI {
    struct ActivityView: Encodable {
        var id: String
        var device: String
        var bundleID: String
        var attributesType: String
        var attributes: [String: JSONValue]
        var contentState: [String: JSONValue]
        /// The activity's push token, which `liveactivity` pushes for it go to.
        var token: String?
        /// The broadcast channel it is subscribed to instead of a token.
        var channel: String?
        var startedAt: Date
        /// The `timestamp` of the last push applied.
        var timestamp: Date?
        var staleDate: Date?
        var stale: Bool
        var relevanceScore: Double?
        var ended: Bool
        var endedAt: Date?
        var dismissalDate: Date?
        /// Still on the Lock Screen: running, or ended and not yet dismissed.
        var visible: Bool

        init(device: String, activity: LiveActivity, now: Date) {
            id = activity.id
            self.device = device
            bundleID = activity.bundleID
            attributesType = activity.attributesType
            attributes = activity.attributes
            contentState = activity.contentState
            token = activity.pushToken?.hex
            channel = activity.channelID
            startedAt = activity.startedAt
            timestamp = activity.timestamp
            staleDate = activity.staleDate
            stale = activity.isStale(at: now)
            relevanceScore = activity.relevanceScore
            ended = activity.isEnded
            endedAt = activity.endedAt
            dismissalDate = activity.dismissalDate
            visible = activity.isVisible(at: now)
        }
    }

    /// The body of `POST /v1/devices/{id}/activities`.
    private struct StartRequest: Decodable {
        var bundleID: String
        var attributesType: String
        var attributes: [String: JSONValue]
        var contentState: [String: JSONValue]
        var staleDate: Date?
        var relevanceScore: Double?
        /// A broadcast channel of the app to subscribe to (`pushType: .channel(_:)`) instead of getting a push token.
        var channel: String?
    }

    func addActivityRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("activities") { request, _ in
            let query = request.queryValues
            let now = self.clock.now()
            let views = self.devices.activities()
                .filter { entry in query["device"].map { $0 == entry.device } ?? true }
                .filter { entry in query["bundle"].map { $0 == entry.activity.bundleID } ?? true }
                .filter { entry in query["token"].map { $0.lowercased() == entry.activity.pushToken?.hex } ?? true }
                .filter { entry in query["channel"].map { $0 == entry.activity.channelID } ?? true }
                .map { ActivityView(device: $0.device, activity: $0.activity, now: now) }
            return try ControlJSON.response(views)
        }
        v1.post("devices/:id/activities") { request, context in
            try await self.startActivity(request, device: context.parameters.get("id") ?? "")
        }
        v1.post("activities/:id/end") { request, context in
            try await self.endActivity(request, id: context.parameters.get("id") ?? "")
        }
    }

    /// The body of `POST /v1/activities/{id}/end`, all optional.
    private struct EndRequest: Decodable {
        var contentState: [String: JSONValue]?
        var dismissalDate: Date?
    }

    /// The app ends the activity (`Activity.end(_:dismissalPolicy:)`): with a final state or the last, on the Lock Screen
    /// until `dismissalDate` (four hours by default; a past date removes it at once).
    private func endActivity(_ request: Request, id: String) async throws -> Response {
        let buffer = try await request.body.collect(upTo: 1 << 20)
        var body = EndRequest()
        if buffer.readableBytes > 0 {
            do {
                body = try ControlJSON.decode(EndRequest.self, from: Data(buffer.readableBytesView))
            } catch {
                return ControlJSON.error(error.description + #"; give {"contentState": {…}, "dismissalDate": TIME}, each optional"#)
            }
        }
        let now = clock.now()
        guard devices.endActivity(id, contentState: body.contentState, dismissal: body.dismissalDate, at: now),
              let entry = devices.activities().first(where: { $0.activity.id == id }) else {
            return ControlJSON.error("no device has a Live Activity \(id)", status: .notFound)
        }
        return try ControlJSON.response(ActivityView(device: entry.device, activity: entry.activity, now: now))
    }

    private func startActivity(_ request: Request, device: String) async throws -> Response {
        let body: StartRequest
        do {
            body = try await ControlJSON.decode(StartRequest.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description
                                     + #"; give {"bundleID", "attributesType", "attributes": {…}, "contentState": {…}}, and "channel" to subscribe to one"#)
        }
        let now = clock.now()
        let started: LiveActivity
        switch actions.startActivity(device: device, bundleID: body.bundleID, type: body.attributesType, attributes: body.attributes,
                                     contentState: body.contentState, staleDate: body.staleDate, relevanceScore: body.relevanceScore,
                                     channel: body.channel) {
        case .success(let activity):
            started = activity
        case .failure(let refusal):
            let status: HTTPResponse.Status = switch refusal.kind {
            case .notConnected: .conflict
            case .notInstalled: .notFound
            case .undeclared, .noChannel: .unprocessableContent
            }
            return ControlJSON.error(refusal.description, status: status)
        }
        return try ControlJSON.response(ActivityView(device: device, activity: started, now: now), status: .created)
    }
}
