import APNSimDevice
import APNSimGateway
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The sandbox inbox's files and its event stream, as the control port serves them (the browser check in CI opens
/// the page itself).
@Suite("Inbox")
struct InboxTests {
    @Test("The page, its stylesheet and script are served with their types; an unknown file is 404")
    func files() async throws {
        try await withGateway { harness in
            let base = "http://127.0.0.1:\(harness.endpoints.controlPort)"
            for (path, type, mention) in [("/", "text/html", "apnsim inbox"), ("/inbox/inbox.css", "text/css", "prefers-color-scheme"),
                                          ("/inbox/inbox.js", "text/javascript", "EventSource")] {
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + path), timeout: .seconds(10))
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers.first(name: "content-type")?.hasPrefix(type) == true, "\(path)")
                let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
                #expect(text.contains(mention), "\(path)")
            }
            let missing = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/inbox/secrets.txt"), timeout: .seconds(10))
            #expect(missing.status == .notFound)
        }
    }

    @Test("GET /v1/events says hello, then an event when a delivery is recorded")
    func events() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let base = "http://127.0.0.1:\(harness.endpoints.controlPort)"
                let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/v1/events"), timeout: .seconds(30))
                #expect(response.headers.first(name: "content-type") == "text/event-stream")
                var text = ""
                var sent = false
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    if text.contains("event: hello"), !sent {
                        sent = true
                        let token = try #require(device.tokens["com.example.app"])
                        _ = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"live"}}"#,
                                                               apnsID: UUID().uuidString)
                    }
                    if text.contains("event: deliveries") { break }
                }
                #expect(text.contains("event: deliveries\ndata: {\"generation\":"))
            }
        }
    }
}
