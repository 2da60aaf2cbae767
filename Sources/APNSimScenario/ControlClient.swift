import APNSimRules
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The control API as the scenario runner reads and drives it (`GET /v1/deliveries`, `POST /v1/devices/…`): the
/// same HTTP any test in any language uses, so a replay against an embedded world and one against a running
/// gateway take one path.
struct ControlClient: Sendable {
    /// `http://HOST:PORT`.
    let baseURL: String
    /// Sent as `Authorization: Bearer …` when the control API asks for one.
    var token: String?
    /// How long one request may take: an install waits for the device's answer (its Swift extension's build), a
    /// long-poll for what it waits for. Only a hang runs into it (``ScenarioRunner/Options/patience``).
    var timeout: Duration = .seconds(600)

    struct Answer: Sendable {
        var status: Int
        var body: JSONValue?
    }

    func get(_ path: String) async throws -> Answer {
        try await request(path, method: .GET)
    }

    func post(_ path: String, body: String? = nil) async throws -> Answer {
        try await request(path, method: .POST, body: body)
    }

    func delete(_ path: String) async throws -> Answer {
        try await request(path, method: .DELETE)
    }

    /// The client the runner's requests go through: no read timeout of its own (async-http-client's shared one gives
    /// up after 90 s without a byte, which an install waiting on a build on a busy machine can take); each request's
    /// deadline is ``timeout``.
    private static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                           configuration: .init(timeout: .init(connect: .seconds(60), read: nil)))

    private func request(_ path: String, method: HTTPMethod, body: String? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await Self.client.execute(request, timeout: .nanoseconds(timeout.components.seconds * 1_000_000_000))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let value = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes.readableBytesView))
        return Answer(status: Int(response.status.code), body: value)
    }

    /// The device's registered token for `app`, its refusal, or neither yet.
    func install(device: String, app: String) async throws -> (token: String?, refusal: String?) {
        guard case .array(let devices)? = try await get("/v1/devices").body,
              let entry = devices.first(where: { $0["id"]?.string == device }) else { return (nil, nil) }
        let token = entry["apps"]?.array?.first { $0["bundleID"]?.string == app }?["token"]?.string
        let refusal = entry["refused"]?.array?.first { $0["bundleID"]?.string == app }?["message"]?.string
        return (token, refusal)
    }
}
