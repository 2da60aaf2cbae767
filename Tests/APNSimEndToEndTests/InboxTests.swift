import APNSimDevice
import APNSimGateway
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The sandbox inbox's files and its event stream, as the control port serves them (the browser check in CI opens
/// the page itself).
@Suite("Inbox", .endToEnd)
struct InboxTests {
    @Test("The page, its stylesheet and script are served with their types; an unknown file is 404")
    func files() async throws {
        try await withGateway { harness in
            let base = "http://127.0.0.1:\(harness.endpoints.controlPort)"
            for (path, type, mention) in [("/", "text/html", "apnsim inbox"), ("/inbox/inbox.css", "text/css", "prefers-color-scheme"),
                                          ("/inbox/inbox.js", "text/javascript", "EventSource")] {
                let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: base + path), timeout: HangGuard.deadline)
                #expect(response.status == .ok, "\(path)")
                #expect(response.headers.first(name: "content-type")?.hasPrefix(type) == true, "\(path)")
                let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
                #expect(text.contains(mention), "\(path)")
            }
            let missing = try await HTTPClient.forTests.execute(HTTPClientRequest(url: base + "/inbox/secrets.txt"), timeout: HangGuard.deadline)
            #expect(missing.status == .notFound)
        }
    }

    @Test("GET /v1/events says hello, then an event when a delivery is recorded")
    func events() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let base = "http://127.0.0.1:\(harness.endpoints.controlPort)"
                let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: base + "/v1/events"), timeout: HangGuard.deadline)
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
                #expect(text.contains("event: deliveries\ndata: {\"batches\":"))
            }
        }
    }

    @Test("A rejected push is an event for the sends log, a device offline one for the device cards, a reset one to start over")
    func sendsAndDeviceEvents() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let base = "http://127.0.0.1:\(harness.endpoints.controlPort)"
                // The device's registration is in the record before the stream opens (the gateway queued it before
                // answering the device), so any deliveries event below is the test's own doing.
                try await harness.gateway.deliveries.flush()
                let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: base + "/v1/events"), timeout: HangGuard.deadline)
                var text = ""
                var beforeReset = ""
                var step = 0
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    if step == 0, text.contains("event: hello") {
                        step = 1
                        let token = try #require(device.tokens["com.example.app"])
                        _ = try await DeviceDeliveryTests.push(harness, token: token, payload: "{}", apnsID: UUID().uuidString,
                                                               extra: [("apns-topic", "com.example.other")])
                    }
                    if step == 1, text.contains("event: sends") {
                        step = 2
                        _ = try await harness.control.post("/v1/devices/device-1/offline")
                    }
                    if step == 2, text.contains("event: devices") {
                        step = 3
                        beforeReset = text
                        _ = try await harness.control.post("/v1/reset")
                    }
                    if step == 3, text.contains("event: reset") { break }
                }
                #expect(text.contains("event: hello\ndata: {\"run\":\""))
                #expect(text.contains("event: sends\ndata: {\"batches\":"))
                #expect(text.contains("event: devices\ndata: {\"revision\":"))
                #expect(!beforeReset.contains("event: deliveries"), "a rejected push delivers nothing")
            }
        }
    }

    @Test("Older deliveries page by the oldest one shown: no delivery twice, none left out; an unknown cursor gives none")
    func paging() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                for index in 0..<7 {
                    _ = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"\#(index)"}}"#,
                                                           apnsID: UUID().uuidString)
                }
                _ = try await control.deliveries("limit=1000", count: 7)
                var seen: [String] = []
                var path = "/v1/deliveries?order=newest&limit=3"
                while true {
                    let page = try #require(try await control.get(path).json as? [[String: Any]])
                    seen += page.compactMap { $0["id"] as? String }
                    guard page.count == 3, let oldest = page.last?["id"] as? String else { break }
                    path = "/v1/deliveries?order=newest&limit=3&cursor=\(oldest)"
                }
                let all = try #require(try await control.get("/v1/deliveries?order=newest&limit=100").json as? [[String: Any]])
                #expect(seen == all.compactMap { $0["id"] as? String })
                #expect(seen.count == 7)
                let none = try #require(try await control.get("/v1/deliveries?cursor=nothing").json as? [[String: Any]])
                #expect(none.isEmpty)
            }
        }
    }

    @Test("Without a composer, GET /v1/compose says why and POST /v1/compose is 503 with that sentence")
    func composerOff() async throws {
        try await withGateway { harness in
            let control = harness.control
            let offer = try #require(try await control.get("/v1/compose").json as? [String: Any])
            #expect(offer["available"] as? Bool == false)
            #expect((offer["why"] as? String)?.contains("provider key") == true)
            let answer = try await control.post("/v1/compose", #"{"device":"d","bundleID":"b","payload":"{}"}"#)
            let (status, json) = (answer.status, answer.json)
            #expect(status == 503)
            #expect(((json as? [String: Any])?["error"] as? String)?.contains("provider key") == true)
        }
    }
}
