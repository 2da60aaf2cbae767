import APNSimRules
import APNSimStore
import Foundation
import Hummingbird

/// The query strings of the control API's reads, parsed without the server: every bad value is a sentence
/// naming the parameter, and nothing in a query can trap (the fuzz tests feed these directly).
enum ControlQuery {
    /// The query parameters each route takes, by method and route path as the router names it (and as
    /// docs/control-api.openapi.yaml does); a route not listed takes none. ``ParameterCheck`` refuses any other.
    static let parameters: [String: [String]] = [
        "GET /v1/sends": ["token", "topic", "apnsId", "uniqueId", "status", "after", "before", "limit"],
        "GET /v1/deliveries": ["device", "token", "bundleID", "apnsId", "uniqueId", "after", "before", "cursor", "order", "limit", "wait", "count"],
        "GET /v1/activities": ["device", "bundleID", "token", "channel"],
        "GET /v1/tokens": ["cursor", "limit"],
        "GET /v1/interactions": ["device", "token", "bundleID", "apnsId", "limit", "wait", "count"],
        "GET /v1/connections": ["event", "reason", "environment", "after", "before", "cursor", "order", "limit", "wait", "count"],
        "GET /v1/summaries": ["device", "limit"],
        "POST /v1/devices/{id}/apps": ["wait"],
    ]

    /// Refuses a request with a query parameter its route does not take, with 400 naming it: a mistyped filter
    /// (`GET /v1/sends?uniqueID=…`) would otherwise be ignored and answer every record, as if each matched.
    struct ParameterCheck: RouterMiddleware {
        typealias Context = BasicRequestContext

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            // No route path: no route matched, and the answer is 404 whatever the query.
            guard let path = context.endpointPath else { return try await next(request, context) }
            if let message = ControlQuery.unknownParameter(method: request.method.rawValue, route: path,
                                                           names: request.uri.queryParameters.map { String($0.key) }) {
                return ControlJSON.error(message)
            }
            var response = try await next(request, context)
            OldSpellings.mark(&response, route: "\(request.method.rawValue) \(path)", query: request.queryValues)
            return response
        }
    }

    /// The sentence refusing the first of `names` that the route does not take, or `nil` when it takes them all. An
    /// old spelling (``OldSpellings``) is taken, and not named among what the route takes.
    static func unknownParameter(method: String, route: String, names: [String]) -> String? {
        let route = "\(method) \(route)"
        let known = parameters[route] ?? []
        let old = OldSpellings.queryNames[route] ?? [:]
        guard let unknown = names.first(where: { !known.contains($0) && old[$0] == nil }) else { return nil }
        let takes = known.isEmpty ? "takes no query parameters" : "takes " + known.joined(separator: ", ")
        return "unknown query parameter \(unknown): \(route) \(takes)"
    }

    /// `GET /v1/sends?token=&topic=&apnsId=&uniqueId=&status=&after=&before=&limit=` (`since=`: the old spelling of
    /// `after=`, at or after its time).
    static func sendFilter(_ query: [String: String]) throws(ControlAPIError) -> SendFilter {
        var filter = SendFilter()
        filter.token = query["token"]
        filter.apnsID = query["apnsId"]
        filter.uniqueID = query["uniqueId"]
        filter.topic = query["topic"]
        if let status = query["status"] {
            guard let value = Int(status) else { throw ControlAPIError("status must be a number such as 400; got \(shown(status))") }
            filter.status = value
        }
        filter.after = try time(query, "after")
        filter.before = try time(query, "before")
        filter.since = try time(query, "since")
        if let limit = query["limit"] { filter.limit = try positive(limit, name: "limit") }
        return filter
    }

    /// The time `name` says, if given: RFC 3339, or milliseconds since 1970.
    private static func time(_ query: [String: String], _ name: String) throws(ControlAPIError) -> Date? {
        guard let text = query[name] else { return nil }
        guard let date = ControlJSON.date(text) else {
            throw ControlAPIError("\(name) must be an RFC 3339 time or milliseconds since 1970; got \(shown(text))")
        }
        return date
    }

    /// `POST /v1/devices/{id}/apps?wait=SECONDS`: how long the answer waits for the device to install the app (and
    /// build its Swift extension, which on a cold cache takes minutes on a slow machine); `otherwise` when absent
    /// (``GatewayConfiguration/installWait``, 120 s), up to 600.
    static func installWait(_ query: [String: String], otherwise: Duration) throws(ControlAPIError) -> Duration {
        guard let text = query["wait"] else { return otherwise }
        guard let seconds = Double(text), seconds > 0, seconds <= 600 else {
            throw ControlAPIError("wait must be a number of seconds above 0 and up to 600; got \(shown(text))")
        }
        return .milliseconds(Int64(saturating: seconds * 1000))
    }

    /// `GET /v1/deliveries?device=&token=&bundleID=&apnsId=&uniqueId=&after=&before=&cursor=&order=&limit=&wait=&count=`: the
    /// filter, how long to wait, and how many deliveries with an outcome the wait is for (1 unless `count` says).
    static func deliveryFilter(_ query: [String: String]) throws(ControlAPIError) -> (DeliveryFilter, wait: Duration, count: Int) {
        var filter = DeliveryFilter()
        filter.device = query["device"]
        filter.token = query["token"]
        filter.bundleID = try oneOf(query, "bundleID", old: "bundle")
        filter.apnsID = query["apnsId"]
        filter.uniqueID = query["uniqueId"]
        if let order = query["order"] {
            guard order == "newest" || order == "oldest" else { throw ControlAPIError("order must be newest or oldest; got \(shown(order))") }
            filter.newestFirst = order == "newest"
        }
        filter.after = try time(query, "after")
        if let before = OldSpellings.oldCursor(query) {
            // Its old meaning: a delivery's ID, older ones than it.
            guard query["cursor"] == nil else { throw ControlAPIError("before must be an RFC 3339 time or milliseconds since 1970; got \(shown(before))") }
            filter.page = .olderThan(before)
        } else {
            filter.before = try time(query, "before")
        }
        if let cursor = query["cursor"] { filter.page = filter.newestFirst ? .olderThan(cursor) : .newerThan(cursor) }
        if let limit = query["limit"] { filter.limit = try positive(limit, name: "limit") }
        let (wait, count) = try longPoll(query, what: "deliveries")
        filter.completedOnly = query["wait"] != nil
        return (filter, wait, count)
    }

    /// `wait=SECONDS` (0 to 60) and `count=N`: how long a read holds its answer until `count` matching records are
    /// there (for deliveries, with an outcome).
    static func longPoll(_ query: [String: String], what: String) throws(ControlAPIError) -> (wait: Duration, count: Int) {
        var wait: Duration = .zero
        if let text = query["wait"] {
            guard let seconds = Double(text), seconds >= 0, seconds <= 60 else {
                throw ControlAPIError("wait must be a number of seconds from 0 to 60; got \(shown(text))")
            }
            wait = .milliseconds(Int64(saturating: seconds * 1000))
        }
        var count = 1
        if let text = query["count"] {
            count = try positive(text, name: "count")
            guard query["wait"] != nil else { throw ControlAPIError("count says how many \(what) wait= waits for; give wait too") }
        }
        return (wait, count)
    }

    /// The value of `name`, or of its old spelling `old`; both at once is a mistake named.
    private static func oneOf(_ query: [String: String], _ name: String, old: String) throws(ControlAPIError) -> String? {
        if let value = query[name] {
            guard query[old] == nil else { throw ControlAPIError("\(old) is the old spelling of \(name): give \(name) alone") }
            return value
        }
        return query[old]
    }

    /// `GET /v1/connections?event=&reason=&environment=&after=&before=&cursor=&order=&limit=&wait=&count=`: `cursor` is the ID
    /// of the last record of the page before; `order=newest` lists the newest first.
    static func connectionFilter(_ query: [String: String]) throws(ControlAPIError) -> (ConnectionFilter, wait: Duration, count: Int) {
        var filter = ConnectionFilter()
        if let event = query["event"] {
            guard let value = ConnectionRecord.Event(rawValue: event) else {
                let events = ConnectionRecord.Event.allCases.map(\.rawValue).joined(separator: ", ")
                throw ControlAPIError("event must be one of \(events); got \(shown(event))")
            }
            filter.event = value
        }
        if let environment = query["environment"] {
            guard APNsEnvironment(rawValue: environment) != nil else {
                throw ControlAPIError("environment must be development or production; got \(shown(environment))")
            }
            filter.environment = environment
        }
        filter.reason = query["reason"]
        filter.after = try time(query, "after")
        filter.before = try time(query, "before")
        filter.cursor = query["cursor"]
        switch query["order"] {
        case nil, "oldest": break
        case "newest": filter.newestFirst = true
        case let order?: throw ControlAPIError("order must be oldest or newest; got \(shown(order))")
        }
        if let limit = query["limit"] { filter.limit = try positive(limit, name: "limit") }
        let (wait, count) = try longPoll(query, what: "connection records")
        return (filter, wait, count)
    }

    /// `GET /v1/interactions?device=&token=&bundleID=&apnsId=&limit=&wait=&count=`.
    /// `GET /v1/summaries?device=&limit=`: the device, and at most how many (100 unless said).
    static func summaryFilter(_ query: [String: String]) throws(ControlAPIError) -> (device: String?, limit: Int) {
        (query["device"], try query["limit"].map { text throws(ControlAPIError) in try positive(text, name: "limit") } ?? 100)
    }

    static func interactionFilter(_ query: [String: String]) throws(ControlAPIError) -> (InteractionFilter, wait: Duration, count: Int) {
        var filter = InteractionFilter(device: query["device"], token: query["token"], bundleID: try oneOf(query, "bundleID", old: "bundle"),
                                       apnsID: query["apnsId"])
        if let limit = query["limit"] { filter.limit = try positive(limit, name: "limit") }
        let (wait, count) = try longPoll(query, what: "interactions")
        return (filter, wait, count)
    }

    /// `GET /v1/activities?device=&bundleID=&token=&channel=`: the bundle ID asked for, by either spelling.
    static func activityBundleID(_ query: [String: String]) throws(ControlAPIError) -> String? {
        try oneOf(query, "bundleID", old: "bundle")
    }

    /// `GET /v1/tokens?cursor=&limit=`: a page of at most `limit` tokens (1,000 unless said, at most 10,000), those after
    /// the token `cursor` (the last of the page before) in hex order. `after=` is its old spelling.
    static func tokenPage(_ query: [String: String]) throws(ControlAPIError) -> (after: DeviceToken?, limit: Int) {
        var limit = defaultTokenPage
        if let text = query["limit"] {
            limit = try positive(text, name: "limit")
            guard limit <= maximumTokenPage else {
                throw ControlAPIError("limit takes 1 to \(maximumTokenPage) tokens a page; got \(text)")
            }
        }
        guard let text = try oneOf(query, "cursor", old: "after") else { return (nil, limit) }
        var problem = ""
        guard let after = DeviceToken(hex: Substring(text.lowercased()), problem: &problem) else {
            throw ControlAPIError("cursor must be a token, the last of the page before: \(problem)")
        }
        return (after, limit)
    }

    static let defaultTokenPage = 1_000
    static let maximumTokenPage = 10_000

    /// A query value as an error shows it: an empty one by name, since "got " would look like a cut sentence.
    static func shown(_ value: String) -> String {
        value.isEmpty ? "an empty value" : value
    }

    private static func positive(_ text: String, name: String) throws(ControlAPIError) -> Int {
        guard let value = Int(text), value > 0 else { throw ControlAPIError("\(name) must be a positive whole number; got \(shown(text))") }
        return value
    }
}
