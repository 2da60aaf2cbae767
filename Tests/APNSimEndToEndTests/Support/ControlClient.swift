import APNSimTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Talks JSON to the control API over loopback HTTP, as a test in any language would.
///
/// Through async-http-client, not URLSession: on Linux, cancelling a task inside `URLSession.data(for:)` (a task
/// group's `cancelAll()` while a long-poll is in flight) can deadlock the whole test process. Its cancellation
/// handler calls `URLSessionTask.cancel()`, which waits for the session's queue while holding the task's status
/// lock, and that queue is at the same moment resuming the task's continuation, which needs that lock.
struct ControlClient: Sendable {
    let port: Int

    func get(_ path: String, headers: [(String, String)] = []) async throws -> (status: Int, json: Any) {
        let response = try await request(.GET, path, body: nil, headers: headers)
        return (response.status, response.json)
    }

    /// `GET` with the response's headers: for a page's `Link` to the next.
    func getWithHeaders(_ path: String) async throws -> (status: Int, json: Any, headers: HTTPHeaders) {
        try await request(.GET, path, body: nil)
    }

    func post(_ path: String, _ body: String? = nil) async throws -> (status: Int, json: Any) {
        let response = try await request(.POST, path, body: body)
        return (response.status, response.json)
    }

    func delete(_ path: String) async throws -> (status: Int, json: Any) {
        let response = try await request(.DELETE, path, body: nil)
        return (response.status, response.json)
    }

    /// Waits until `check` holds, asking again each time `GET /v1/events` says the record or the devices changed: for
    /// what no long-poll answers, such as the gateway seeing a device link close or a push acknowledged. The check runs
    /// once the stream has said hello, so no change is missed between the two. `hangGuard` only ends a wait that would
    /// never end.
    func waitUntil(_ what: String, hangGuard: Duration = HangGuard.limit, _ check: @escaping @Sendable () async throws -> Bool) async throws {
        let met = try await withHangGuard(hangGuard) {
            let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/events"),
                                                                 timeout: .seconds(hangGuard.components.seconds))
            var events = response.body.makeAsyncIterator()
            guard try await events.next() != nil else { return false }  // the hello
            if try await check() { return true }
            while try await events.next() != nil {
                if try await check() { return true }
            }
            return false  // the gateway stopped
        } ?? false
        guard met else { throw ControlClientError("\(what): still not so after \(hangGuard), or the gateway stopped") }
    }

    /// `GET /v1/deliveries?QUERY` once `count` of its deliveries have an outcome: long-polls (`wait=60&count=`) asked
    /// again until then, since the control API holds one for 60 s at most and on a busy machine what it waits for (a
    /// download, an extension's build) can take longer. After the hang guard, what there is.
    func deliveries(_ query: String, count: Int = 1) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + HangGuard.limit
        while true {
            let records = try await get("/v1/deliveries?\(query)&wait=60&count=\(count)").json as? [[String: Any]] ?? []
            if records.count { $0["outcome"] != nil } >= count || ContinuousClock.now >= deadline { return records }
        }
    }

    /// `GET /v1/devices` once `check` holds for what it answers (see ``waitUntil(_:hangGuard:_:)``).
    func devices(until check: @escaping @Sendable ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let seen = SeenDevices()
        try await waitUntil("the device list to match") {
            let devices = try await get("/v1/devices").json as? [[String: Any]] ?? []
            seen.set(devices)
            return check(devices)
        }
        return seen.value
    }

    private func request(_ method: HTTPMethod, _ path: String, body: String?,
                         headers: [(String, String)] = []) async throws -> (status: Int, json: Any, headers: HTTPHeaders) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "content-type", value: "application/json")
        }
        let response = try await HTTPClient.forTests.execute(request, timeout: HangGuard.deadline)
        let data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        let json = (try? JSONSerialization.jsonObject(with: data)) ?? String(decoding: data, as: UTF8.self)
        return (Int(response.status.code), json, response.headers)
    }
}

struct ControlClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The device list a check last saw (JSON values are not `Sendable`; it is written and read under a lock).
private final class SeenDevices: @unchecked Sendable {
    private let lock = NSLock()
    private var devices: [[String: Any]] = []
    func set(_ devices: [[String: Any]]) { lock.withLock { self.devices = devices } }
    var value: [[String: Any]] { lock.withLock { devices } }
}
