import APNSimRules
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
        /// Its place among its app's visible activities, in the order the device last reported: 1 is the one in the
        /// Dynamic Island and first on the Lock Screen; `nil` once dismissed.
        var displayRank: Int?
        /// Its app ended it while the device had no link: the device ends it when it links again, and `ended` says so
        /// once it has reported it.
        var endPending: Bool
        var ended: Bool
        var endedAt: Date?
        var dismissalDate: Date?
        /// Still on the Lock Screen: running, or ended and not yet dismissed.
        var visible: Bool
        /// The replica its device is linked to, when replicas share a store (as `GET /v1/devices` says it).
        var replica: String?
        /// Scheduled by its app to start at `startedAt` (iOS 26): no token until then, and not on the Lock Screen.
        var scheduled: Bool?

        init(_ listed: DeviceDirectory.ListedActivity, now: Date) {
            self.init(device: listed.device, activity: listed.activity, now: now, displayRank: listed.displayRank, endPending: listed.endPending,
                      scheduled: listed.scheduled)
        }

        init(device: String, activity: LiveActivity, now: Date, displayRank: Int? = nil, endPending: Bool = false, scheduled: Bool = false) {
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
            self.displayRank = displayRank
            self.endPending = endPending
            ended = activity.isEnded
            endedAt = activity.endedAt
            dismissalDate = activity.dismissalDate
            visible = !scheduled && activity.isVisible(at: now)
            self.scheduled = scheduled ? true : nil
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
        /// When it starts (iOS 26's `start:`): a time still to come on the world's clock schedules it; absent, now.
        var start: Date?
    }

    func addActivityRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("activities") { request, _ in
            let query = request.queryValues
            let bundleID: String?
            do throws(ControlAPIError) {
                bundleID = try ControlQuery.activityBundleID(query)
            } catch {
                return ControlJSON.error(error.description)
            }
            self.devices.startScheduled(now: self.clock.now())
            var views = self.activityViews(now: self.clock.now())
                .filter { view in query["device"].map { $0 == view.device } ?? true }
                .filter { view in bundleID.map { $0 == view.bundleID } ?? true }
                .filter { view in query["token"].map { $0.lowercased() == view.token } ?? true }
                .filter { view in query["channel"].map { $0 == view.channel } ?? true }
            guard let forwarding = self.forwarding else { return try ControlJSON.response(views) }
            let replicas = self.devices.replicas(of: Set(views.map(\.device)), named: forwarding.links.name)
            for index in views.indices { views[index].replica = replicas[views[index].device] }
            guard request.headers[ReplicaForwarding.forwardedBy] == nil else { return try ControlJSON.response(views) }
            // Any replica lists them all: each device's activities as the replica it is linked to has them.
            return try await forwarding.merged(views, asked: request)
        }
        v1.post("devices/:id/activities") { request, context in
            try await self.startActivity(request, device: context.parameters.get("id") ?? "")
        }
        v1.post("activities/:id/end") { request, context in
            try await self.endActivity(request, id: context.parameters.get("id") ?? "")
        }
    }

    /// Every device's activities as `GET /v1/activities` shows them at `now`, by device and then start.
    private func activityViews(now: Date) -> [ActivityView] {
        devices.activityListing(now: now).map { ActivityView($0, now: now) }
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
        guard let end = devices.endActivity(id, contentState: body.contentState, dismissal: body.dismissalDate, at: now) else {
            return ControlJSON.error("no device has a Live Activity \(id)", status: .notFound)
        }
        var status: HTTPResponse.Status = .ok
        switch end {
        case .cancelled(var activity, let device):
            // Ended before it started: it never will, and no device ever had it.
            (activity.endedAt, activity.dismissalDate) = (now, now)
            return try ControlJSON.response(ActivityView(device: device, activity: activity, now: now))
        case .waiting:
            status = .accepted  // the device has no link, and ends the activity first thing when it links again
        case .send(let link, let message, let device):
            switch await requests.ask(message, awaiting: .activities(device: device), on: link, timeout: GatewayActions.interactionWait) {
            case .answered:
                break
            case .sessionEnded:
                // Whether the device ended it before its link went is unknown: it is told again (an end is applied once).
                devices.wait(message, for: device)
                status = .accepted
            case .timedOut:
                return ControlJSON.error("device \(device) did not answer the end of Live Activity \(id) within \(GatewayActions.interactionWait)",
                                         status: .gatewayTimeout)
            }
        }
        guard let view = activityViews(now: clock.now()).first(where: { $0.id == id }) else {
            return ControlJSON.error("device no longer has Live Activity \(id) (its app was removed)", status: .notFound)
        }
        return try ControlJSON.response(view, status: status)
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
                                     channel: body.channel, start: body.start) {
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
        let view = activityViews(now: now).first { $0.id == started.id }
            ?? ActivityView(device: device, activity: started, now: now, scheduled: started.startedAt > now)
        return try ControlJSON.response(view, status: .created)
    }
}
