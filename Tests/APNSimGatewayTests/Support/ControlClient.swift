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
        try await request(.GET, path, body: nil, headers: headers)
    }

    func post(_ path: String, _ body: String? = nil) async throws -> (status: Int, json: Any) {
        try await request(.POST, path, body: body)
    }

    func delete(_ path: String) async throws -> (status: Int, json: Any) {
        try await request(.DELETE, path, body: nil)
    }

    private func request(_ method: HTTPMethod, _ path: String, body: String?,
                         headers: [(String, String)] = []) async throws -> (status: Int, json: Any) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "content-type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let data = Data(try await response.body.collect(upTo: 64 << 20).readableBytesView)
        let json = (try? JSONSerialization.jsonObject(with: data)) ?? String(decoding: data, as: UTF8.self)
        return (Int(response.status.code), json)
    }
}
