import APNSimRules
import APNSimGateway
import APNSimTestSupport
import APNSimTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The inbox's composer (`POST /v1/compose`) in a whole sandbox world: it sends through the provider API, signed
/// with the world's key, so a good push is displayed and a bad one gets Apple's status, reason and the gateway's
/// explanation; a request it cannot send is a sentence naming what is wrong.
@Suite("Inbox composer", .endToEnd)
struct InboxComposerTests {
    static func post(_ world: SimulatedWorld, _ body: String) async throws -> (status: UInt, json: [String: Any]) {
        var request = HTTPClientRequest(url: world.controlURL + "/v1/compose")
        request.method = .POST
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.forTests.execute(request, timeout: HangGuard.deadline)
        let data = Data(try await response.body.collect(upTo: 1 << 20).readableBytesView)
        return (response.status.code, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    static func compose(device: String = "iphone-dev", app: String = "com.example.app", payload: String,
                        extra: [String: Any] = [:]) throws -> String {
        let body = ["device": device, "bundleID": app, "payload": payload].merging(extra) { $1 }
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    @Test("It offers the media server's fixtures and every push type; a Braze push is displayed with the device's copy")
    func brazeThroughTheProviderAPI() async throws {
        try await SimulatedWorld.run { world in
            let offer = try await HTTPClient.forTests.execute(HTTPClientRequest(url: world.controlURL + "/v1/compose"), timeout: HangGuard.deadline)
            let offered = try #require(try JSONSerialization.jsonObject(with: Data(try await offer.body.collect(upTo: 1 << 20).readableBytesView)) as? [String: Any])
            #expect(offered["available"] as? Bool == true)
            let media = try #require(offered["media"] as? [String: Any])
            #expect((media["fixtures"] as? [String])?.contains("sample.jpg") == true)
            #expect((media["fixtures"] as? [String])?.contains("README.md") == false)
            #expect((offered["pushTypes"] as? [String])?.contains("liveactivity") == true)

            let payload = #"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1,"badge":5},"ab":{"att":{"url":"\#(world.mediaURL)/media/sample.jpg","type":"jpg"}}}"#
            let (status, sent) = try await Self.post(world, try Self.compose(payload: payload))
            #expect(status == 200)
            #expect(sent["status"] as? Int == 200)
            #expect(sent["topic"] as? String == "com.example.app")
            let record = try #require(sent["send"] as? [String: Any])
            #expect(record["authMode"] as? String == "token")
            #expect(record["keyID"] as? String == "SIMKEY0001")
            let delivery = try await world.delivery(apnsID: try #require(sent["apnsId"] as? String))
            #expect(delivery.outcome == .displayed)
            let attachment = try #require(delivery.content?.attachments.first)
            let copy = try await HTTPClient.forTests.execute(HTTPClientRequest(url: world.controlURL + "/v1/attachments/\(attachment.sha256)"),
                                                           timeout: HangGuard.deadline)
            #expect(copy.status == .ok)
            #expect(copy.headers.first(name: "content-type") == "image/jpeg")
            // The app's badge, as the device reported it.
            let devices = try await HTTPClient.forTests.execute(HTTPClientRequest(url: world.controlURL + "/v1/devices"), timeout: HangGuard.deadline)
            let list = try #require(try JSONSerialization.jsonObject(with: Data(try await devices.body.collect(upTo: 1 << 20).readableBytesView)) as? [[String: Any]])
            let apps = try #require(list.first { $0["id"] as? String == "iphone-dev" }?["apps"] as? [[String: Any]])
            #expect(apps.first?["badge"] as? Int == 5)
        }
    }

    @Test("A Live Activity update gets the push type's topic suffix; a bad topic gets Apple's reason and the explanation")
    func topics() async throws {
        try await SimulatedWorld.run { world in
            let live = #"{"aps":{"timestamp":1,"event":"update","content-state":{"eta":5}}}"#
            let (_, updated) = try await Self.post(world, try Self.compose(payload: live, extra: ["pushType": "liveactivity"]))
            #expect(updated["status"] as? Int == 200)
            #expect(updated["topic"] as? String == "com.example.app.push-type.liveactivity")
            #expect(try await world.delivery(apnsID: try #require(updated["apnsId"] as? String)).outcome == .liveactivity)

            let (status, rejected) = try await Self.post(world, try Self.compose(payload: #"{"aps":{"alert":"hi"}}"#,
                                                                                  extra: ["topic": "com.example.other"]))
            #expect(status == 200)  // the control API answered; the provider API said no
            #expect(rejected["status"] as? Int == 400)
            #expect(rejected["reason"] as? String == "DeviceTokenNotForTopic")
            #expect((rejected["explanation"] as? String)?.contains("belongs to com.example.app, not com.example.other") == true)
        }
    }

    @Test("What the composer cannot send is a sentence naming it, and nothing is sent", arguments: [
        (#"{"device":"iphone-dev"}"#, 400, "missing field \"bundleID\""),
        ("not json", 400, "not valid JSON"),
        (#"{"device":"nowhere","bundleID":"com.example.app","payload":"{}"}"#, 404, "there is no device nowhere"),
        (#"{"device":"iphone-dev","bundleID":"com.example.absent","payload":"{}"}"#, 404, "has no registered com.example.absent"),
        (#"{"device":"iphone-dev","bundleID":"com.example.app","payload":"{}","pushType":"Alert"}"#, 400, "pushType Alert is not one of alert, background"),
    ])
    func badRequests(body: String, status: UInt, says: String) async throws {
        try await SimulatedWorld.run { world in
            let (answered, json) = try await Self.post(world, body)
            #expect(answered == status)
            let error = try #require(json["error"] as? String)
            #expect(error.contains(says), "\(error)")
            #expect(try await world.sends().isEmpty)
        }
    }
}
