import APNSimRules
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The control API (docs/control-api.md) over HTTP, as a test in any language talks to it: for a gateway this process
/// did not start (`apnsim up`, a container of the compose stack) or for ``SimulatedWorld/controlURL``.
///
/// ```swift
/// let control = ControlClient(baseURL: "http://127.0.0.1:8080")
/// let deliveries = try await control.get("/v1/deliveries?device=iphone-dev&wait=60&count=1")
/// #expect(deliveries.body?.array?.first?["outcome"]?.string == "displayed")
/// ```
///
/// Through async-http-client, not URLSession: on Linux, cancelling a task inside `URLSession.data(for:)` (a task
/// group's `cancelAll()` while a long-poll is in flight) can deadlock the process. Its cancellation handler calls
/// `URLSessionTask.cancel()`, which waits for the session's queue while holding the task's status lock, and that queue
/// is at the same moment resuming the task's continuation, which needs that lock.
public struct ControlClient: Sendable {
    /// `http://HOST:PORT`.
    public var baseURL: String
    /// Sent as `Authorization: Bearer …` when the control API asks for one (`--control-token`).
    public var token: String?
    /// How long one request, or one ``waitUntil(_:within:_:)``, may take: an install waits for the device's answer (a
    /// Swift extension's build), a long-poll for what it waits for. Only a hang runs into the default, ten minutes.
    public var timeout: Duration

    public init(baseURL: String, token: String? = nil, timeout: Duration = .seconds(600)) {
        self.baseURL = baseURL
        self.token = token
        self.timeout = timeout
    }

    /// The control API on `127.0.0.1:port`.
    public init(port: Int, token: String? = nil, timeout: Duration = .seconds(600)) {
        self.init(baseURL: "http://127.0.0.1:\(port)", token: token, timeout: timeout)
    }

    /// What the control API answered: its status, headers and body, the body as JSON when it is JSON.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: HTTPHeaders
        public var bytes: [UInt8]
        /// The body as JSON, `nil` when it is not JSON (a page, metrics' text).
        public var body: JSONValue?

        /// The body as text.
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    public func get(_ path: String, headers: [(String, String)] = []) async throws -> Answer {
        try await request(.GET, path, headers: headers)
    }

    /// `POST` with `body` as JSON, or with no body.
    public func post(_ path: String, _ body: String? = nil) async throws -> Answer {
        try await request(.POST, path, body: body)
    }

    public func delete(_ path: String) async throws -> Answer {
        try await request(.DELETE, path)
    }

    /// Waits until `check` holds, asking again each time `GET /v1/events` says the record or the devices changed: for
    /// what no long-poll answers, such as the gateway seeing a device link close or a push acknowledged. The check runs
    /// once the stream has said hello, so no change is missed between the two. Throws ``Failure`` naming `what` when
    /// `within` (by default ``timeout``) passes first or the gateway stops.
    public func waitUntil(_ what: String, within: Duration? = nil, _ check: @escaping @Sendable () async throws -> Bool) async throws {
        let limit = within ?? timeout
        let met = try await withThrowingTaskGroup(of: Bool?.self) { group in
            group.addTask {
                var request = HTTPClientRequest(url: baseURL + "/v1/events")
                if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
                // The stream's own deadline is past the wait's, so the wait's end, not the client's, is what a caller hears.
                let response = try await Self.client.execute(request, timeout: Self.timeAmount(limit + .seconds(60)))
                var events = response.body.makeAsyncIterator()
                guard try await events.next() != nil else { return false }  // the hello
                if try await check() { return true }
                while try await events.next() != nil {
                    if try await check() { return true }
                }
                return false  // the gateway stopped
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        } ?? false
        guard met else { throw Failure("\(what): still not so after \(limit), or the gateway stopped") }
    }

    /// The client requests go through: no read timeout of its own (async-http-client's shared one gives up after 90 s
    /// without a byte, which an install waiting on a build on a busy machine can take); each request's deadline is
    /// ``timeout``.
    private static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                           configuration: .init(timeout: .init(connect: .seconds(60), read: nil)))

    private func request(_ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await Self.client.execute(request, timeout: Self.timeAmount(timeout))
        let bytes = Array(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        return Answer(status: Int(response.status.code), headers: response.headers, bytes: bytes, body: value)
    }

    /// `duration` as SwiftNIO's time, to the nanosecond (whole seconds made a 500 ms timeout none at all).
    static func timeAmount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    /// A wait that ended without what it waited for, as one sentence naming it.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
