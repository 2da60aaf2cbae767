import Foundation
import HTTPTypes
import Hummingbird

/// The control API's spellings before 2026-11-29, when each name got one spelling (README, "Changelog"): still taken
/// in queries, and still written beside the new ones in records (`apnsID` and `teamID` in send records, a delivery's
/// `presentation.thread`), until the next release. An answer to a
/// request that used one, or that still writes one, carries `Deprecation` (RFC 9745, "The Deprecation HTTP Response
/// Header Field", https://www.rfc-editor.org/rfc/rfc9745) with that date.
enum OldSpellings {
    /// 2026-11-29T00:00:00Z, as RFC 9745's structured date.
    static let deprecation = "@1795910400"

    /// Each route's old query names, by the name that replaced them.
    static let queryNames: [String: [String: String]] = [
        "GET /v1/sends": ["since": "after"],
        "GET /v1/deliveries": ["bundle": "bundleID"],
        "GET /v1/activities": ["bundle": "bundleID"],
        "GET /v1/interactions": ["bundle": "bundleID"],
        "GET /v1/tokens": ["after": "cursor"],
    ]

    /// Routes whose answers still write an old spelling: send records (`apnsID`, `teamID`) and delivery records
    /// (`presentation.thread`).
    static let answersWithOldFields: Set<String> = ["GET /v1/sends", "GET /v1/deliveries"]

    /// The old spellings a request to `route` (`METHOD /path`) used, in words: `since (now after)`.
    static func used(route: String, query: [String: String]) -> [String] {
        var used = (queryNames[route] ?? [:]).filter { query[$0.key] != nil }.map { "\($0.key) (now \($0.value))" }.sorted()
        // `before=` on deliveries was a delivery's ID; it is a time now, and the ID is `cursor=`.
        if route == "GET /v1/deliveries", let before = query["before"], ControlJSON.date(before) == nil {
            used.append("before=ID (now cursor=ID)")
        }
        return used
    }

    /// Marks `response` deprecated when the request to `route` used an old spelling or the answer writes one.
    static func mark(_ response: inout Response, route: String, query: [String: String]) {
        guard answersWithOldFields.contains(route) || !used(route: route, query: query).isEmpty else { return }
        response.headers[HTTPField.Name("Deprecation")!] = deprecation
    }
}
