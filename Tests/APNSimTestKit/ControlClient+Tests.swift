import APNSimTestSupport
import APNSimTesting
import Foundation

extension ControlClient.Answer {
    /// The body as Foundation's JSON objects (`[String: Any]`, `[Any]`, …), or its text when it is not JSON: what the
    /// tests' `as? [[String: Any]]` read.
    package var json: Any {
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) ?? text
    }
}

extension ControlClient {
    /// `GET /v1/deliveries?QUERY` once `count` of its deliveries have an outcome: long-polls (`wait=60&count=`) asked
    /// again until then, since the control API holds one for 60 s at most and on a busy machine what it waits for (a
    /// download, an extension's build) can take longer. After the hang guard, what there is.
    package func deliveries(_ query: String, count: Int = 1) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + HangGuard.limit
        while true {
            let records = try await get("/v1/deliveries?\(query)&wait=60&count=\(count)").json as? [[String: Any]] ?? []
            if records.count(where: { $0["outcome"] != nil }) >= count || ContinuousClock.now >= deadline { return records }
        }
    }

    /// `GET /v1/devices` once `check` holds for what it answers (see ``waitUntil(_:within:_:)``).
    package func devices(until check: @escaping @Sendable ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let seen = SeenDevices()
        try await waitUntil("the device list to match") {
            let devices = try await get("/v1/devices").json as? [[String: Any]] ?? []
            seen.set(devices)
            return check(devices)
        }
        return seen.value
    }
}

/// The device list a check last saw (JSON values are not `Sendable`; it is written and read under a lock).
private final class SeenDevices: @unchecked Sendable {
    private let lock = NSLock()
    private var devices: [[String: Any]] = []
    func set(_ devices: [[String: Any]]) { lock.withLock { self.devices = devices } }
    var value: [[String: Any]] { lock.withLock { devices } }
}
