import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks JSON to the control API over loopback HTTP, as a test in any language would.
struct ControlClient: Sendable {
    let port: Int

    func get(_ path: String) async throws -> (status: Int, json: Any) {
        try await request("GET", path, body: nil)
    }

    func post(_ path: String, _ body: String? = nil) async throws -> (status: Int, json: Any) {
        try await request("POST", path, body: body)
    }

    func delete(_ path: String) async throws -> (status: Int, json: Any) {
        try await request("DELETE", path, body: nil)
    }

    private func request(_ method: String, _ path: String, body: String?) async throws -> (status: Int, json: Any) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "content-type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) ?? String(decoding: data, as: UTF8.self)
        return (status, json)
    }
}
