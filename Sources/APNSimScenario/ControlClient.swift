import APNSimCore
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

    struct Answer: Sendable {
        var status: Int
        var body: JSONValue?
    }

    func get(_ path: String, timeout: Duration = .seconds(70)) async throws -> Answer {
        try await request(path, method: .GET, timeout: timeout)
    }

    func post(_ path: String, body: String? = nil) async throws -> Answer {
        try await request(path, method: .POST, body: body, timeout: .seconds(30))
    }

    func delete(_ path: String) async throws -> Answer {
        try await request(path, method: .DELETE, timeout: .seconds(30))
    }

    private func request(_ path: String, method: HTTPMethod, body: String? = nil, timeout: Duration) async throws -> Answer {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.components.seconds * 1_000_000_000))
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
