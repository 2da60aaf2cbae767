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

    /// Whether a request to `route` (`METHOD /path`) used an old spelling.
    static func used(route: String, query: [String: String]) -> Bool {
        (queryNames[route] ?? [:]).keys.contains { query[$0] != nil } || route == "GET /v1/deliveries" && oldCursor(query) != nil
    }

    /// The delivery ID of `GET /v1/deliveries?before=ID`: `before=` took a delivery's ID until it became a time, and the
    /// ID is `cursor=` now; a value that is no time is read as the old one.
    static func oldCursor(_ query: [String: String]) -> String? {
        query["before"].flatMap { ControlJSON.date($0) == nil ? $0 : nil }
    }

    /// Marks `response` deprecated when the request to `route` used an old spelling or the answer writes one.
    static func mark(_ response: inout Response, route: String, query: [String: String]) {
        guard answersWithOldFields.contains(route) || used(route: route, query: query) else { return }
        response.headers[HTTPField.Name("Deprecation")!] = deprecation
    }
}
