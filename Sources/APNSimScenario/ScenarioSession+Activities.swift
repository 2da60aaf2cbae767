import APNSimRules
import APNSimTesting
import Foundation

/// `expect: activity`: the newest Live Activity of a type, on a device or on each device of a fleet, as
/// `GET /v1/activities` shows it.
extension ScenarioSession {
    /// Checks the activity against `pattern`; while it does not match, waits for the next delivery the devices
    /// complete and checks again, until `within` has passed. Every push that changes an activity (an update, a
    /// channel's stored message reaching a late subscriber) ends in a delivery record, written after the gateway has
    /// taken the device's receipt, so a completed delivery is the signal that the activity may have changed.
    func activity(device: String, app: String, type: String, matches pattern: JSONValue,
                  within: Duration) async throws -> (happened: String, failures: [String]) {
        let ids = deviceIDs(device)
        let deliveries = "/v1/deliveries?bundleID=\(app)" + (ids.count == 1 ? "&device=\(ids[0])" : "")
        let deadline = ContinuousClock.now + within
        while true {
            // Counted before the check: a delivery completed after the count wakes the wait below at once.
            let completed = try await target.control.get("\(deliveries)&wait=0&limit=1000000").body?.array?.count ?? 0
            let result = try await checkActivity(ids: ids, app: app, type: type, pattern: pattern)
            let left = deadline - ContinuousClock.now
            if result.failures.isEmpty || left <= .zero { return result }
            _ = try await target.control.get("\(deliveries)&wait=\(min(60, left.inSeconds))&count=\(completed + 1)&limit=1")
        }
    }

    private func checkActivity(ids: [String], app: String, type: String,
                               pattern: JSONValue) async throws -> (happened: String, failures: [String]) {
        let newest = try await newestActivities(devices: ids, bundleID: app, type: type)
        var failures: [String] = []
        var matching = 0
        for id in ids {
            let activity = newest[id]
            let problems = activity == nil ? ["activity: \(app) on \(id) has no Live Activity of type \(type)"]
                : Pattern.mismatches(pattern, activity, at: ids.count == 1 ? "activity" : "activity on \(id)")
            if problems.isEmpty { matching += 1 }
            if failures.count < 5 { failures += problems }  // a fleet's first few say enough
        }
        if ids.count > 1 { return ("\(matching) of \(ids.count) activities as expected", failures) }
        let happened = newest[ids[0]].map { "activity \($0["id"]?.string ?? ""): \($0["contentState"]?.jsonText ?? "{}")" } ?? "no activity"
        return (happened, failures)
    }

    /// The newest activity of `type` of `bundleID` on each of `devices`, by device: one `GET /v1/activities` for all.
    func newestActivities(devices: [String], bundleID: String, type: String) async throws -> [String: JSONValue] {
        let query = devices.count == 1 ? "device=\(devices[0])&bundleID=\(bundleID)" : "bundleID=\(bundleID)"
        let activities = try await target.control.get("/v1/activities?\(query)").body?.array ?? []
        var newest: [String: JSONValue] = [:]
        for activity in activities where activity["attributesType"]?.string == type {
            if let device = activity["device"]?.string { newest[device] = activity }  // listed oldest first
        }
        return newest
    }
}
