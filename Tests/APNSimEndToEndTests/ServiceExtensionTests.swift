import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// Provider → gateway → device → the app's notification service extension (downloads, attachments) → the
/// delivery record, over real TLS and a real HTTP media server.
@Suite("Service extensions", .endToEnd)
struct ServiceExtensionTests {
    /// Sends `payload` to the device's app and returns its delivery record once the device has answered.
    static func send(_ payload: String, harness: GatewayHarness, device: DeviceHost) async throws -> [String: Any] {
        let token = try #require(device.tokens["com.example.app"])
        let apnsID = UUID().uuidString
        let response = try await DeviceDeliveryTests.push(harness, token: token, payload: payload, apnsID: apnsID)
        #expect(response.status == 200)
        let control = harness.control
        // Long enough for a download while other suites keep both cores busy; the long-poll returns at once.
        return try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
    }

    @Test("Braze: ab.att with a JPEG, a GIF or an MP4 is downloaded, attached and displayed",
          arguments: [("sample.jpg", "jpg", "public.jpeg"), ("sample.gif", "gif", "com.compuserve.gif"), ("sample.mp4", "mp4", "public.mpeg-4")])
    func brazeImage(_ file: String, type: String, uti: String) async throws {
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.braze)]) { device in
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"\##(media)/media/\##(file)","type":"\##(type)"}}}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["ran"] as? Bool == true)
                    #expect(run["kind"] as? String == "braze")
                    #expect(run["outcome"] as? String == "completed")
                    let content = try #require(record["content"] as? [String: Any])
                    #expect(content["title"] as? String == "Sale")
                    let attachments = try #require(content["attachments"] as? [[String: Any]])
                    #expect(attachments.count == 1)
                    #expect(attachments.first?["type"] as? String == uti)
                    #expect(attachments.first?["sha256"] as? String == (try fixtureSHA256(file)))
                    #expect(attachments.first?["url"] as? String == "\(media)/media/\(file)")
                    #expect(attachments.first?["refusal"] == nil)
                    #expect(device.displayed.first?.content.attachments.first?.type == uti)
                    // The media server counts what it served.
                    let mediaPort = try #require(Int(media.split(separator: ":").last ?? ""))
                    let stats = try #require(try await ControlClient(port: mediaPort).get("/stats").json as? [String: Int])
                    #expect(stats["/media/\(file)"] == 1)
                    // The inbox shows the device's own copy, sent over the device link, with the type's MIME type.
                    let sha = try #require(attachments.first?["sha256"] as? String)
                    let copy = try await HTTPClient.forTests.execute(
                        HTTPClientRequest(url: "http://127.0.0.1:\(harness.endpoints.controlPort)/v1/attachments/\(sha)"), timeout: HangGuard.deadline)
                    #expect(copy.status == .ok)
                    #expect(copy.headers.first(name: "content-type") == AttachmentRules.fileType(forExtension: type)?.mime)
                    let bytes = [UInt8](try await copy.body.collect(upTo: 16 << 20).readableBytesView)
                    #expect(NotificationContent.Attachment.sha256(of: bytes) == sha)
                    // A video player seeks with Range requests.
                    var ranged = HTTPClientRequest(url: "http://127.0.0.1:\(harness.endpoints.controlPort)/v1/attachments/\(sha)")
                    ranged.headers.add(name: "range", value: "bytes=2-11")
                    let part = try await HTTPClient.forTests.execute(ranged, timeout: HangGuard.deadline)
                    #expect(part.status == .partialContent)
                    #expect(part.headers.first(name: "content-range") == "bytes 2-11/\(bytes.count)")
                    #expect([UInt8](try await part.body.collect(upTo: 1 << 20).readableBytesView) == Array(bytes[2...11]))
                }
            }
        }
    }

    @Test("Braze: ab.att without a type shows the original content, and says why")
    func brazeWithoutType() async throws {
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.braze)]) { device in
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"\##(media)/media/sample.jpg"}}}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["outcome"] as? String == "completed")
                    #expect((run["diagnostic"] as? String)?.contains("no type") == true, "\(run)")
                    let content = try #require(record["content"] as? [String: Any])
                    #expect((content["attachments"] as? [Any])?.isEmpty != false)
                    #expect(content["body"] as? String == "50% off")
                }
            }
        }
    }

    /// Braze payloads that go wrong, each with what the diagnostic must say.
    static let brazeFailures: [(name: String, att: String, diagnostic: String)] = [
        ("a URL to a closed port", #"{"url":"http://127.0.0.1:CLOSED/media/sample.jpg","type":"jpg"}"#, "cannot download"),
        ("a 404", #"{"url":"MEDIA/media/missing.jpg","type":"jpg"}"#, "answered 404"),
        ("att that is not an object", "5", "no url"),
        ("a url that is not a string", #"{"url":7,"type":"jpg"}"#, "no url"),
        ("a JPEG claimed to be a PNG", #"{"url":"MEDIA/media/sample.jpg","type":"png"}"#, "UNErrorDomain 105"),
    ]

    @Test("Braze failures show the original content, with a sentence saying why", arguments: brazeFailures.indices)
    func brazeFailure(_ index: Int) async throws {
        let failure = Self.brazeFailures[index]
        let closedPort = try ClosedPort()
        defer { closedPort.close() }
        let closed = closedPort.port
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.braze)]) { device in
                    let att = failure.att.replacingOccurrences(of: "MEDIA", with: media).replacingOccurrences(of: "CLOSED", with: "\(closed)")
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":\##(att)}}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed", "\(failure.name)")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["outcome"] as? String == "completed", "\(failure.name)")
                    #expect((run["diagnostic"] as? String)?.contains(failure.diagnostic) == true, "\(failure.name): \(run)")
                    let content = try #require(record["content"] as? [String: Any])
                    #expect(content["body"] as? String == "50% off")
                    let shown = (content["attachments"] as? [[String: Any]]) ?? []
                    #expect(shown.isEmpty, "nothing iOS would refuse is shown: \(shown)")
                }
            }
        }
    }

    /// Salesforce payloads: the `_mediaUrl` path (after the media server's address), the budget, and what the record must show.
    static let salesforceCases: [(name: String, path: String, budget: Duration, body: String, outcome: String, diagnostic: String)] = [
        ("an image is attached", "/media/sample.jpg", testExtensionBudget, "Your order shipped", "completed", "attached"),
        ("a 404 shows _mediaAlt", "/media/missing.jpg", testExtensionBudget, "A parcel on its way", "completed", "answered 404"),
        ("a JPEG named .png shows _mediaAlt", "/media/jpeg-named.png", testExtensionBudget, "A parcel on its way", "completed", "UNErrorDomain 105"),
        ("slow media and a 2 s budget show _mediaAlt at expiry", "/media/sample.jpg?delay=5", .seconds(2), "A parcel on its way",
         "expired", "_mediaAlt is shown"),
    ]

    @Test("Salesforce MobilePush: _mediaUrl attached, _mediaAlt on every failure and on expiry", arguments: salesforceCases.indices)
    func salesforce(_ index: Int) async throws {
        let testCase = Self.salesforceCases[index]
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.salesforce)],
                                     extensionBudget: testCase.budget) { device in
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Shipping","body":"Your order shipped"},"mutable-content":1},"_mediaUrl":"\##(media)\##(testCase.path)","_mediaAlt":"A parcel on its way"}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed", "\(testCase.name)")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["kind"] as? String == "salesforce")
                    #expect(run["outcome"] as? String == testCase.outcome, "\(testCase.name): \(run)")
                    #expect((run["diagnostic"] as? String)?.contains(testCase.diagnostic) == true, "\(testCase.name): \(run)")
                    let content = try #require(record["content"] as? [String: Any])
                    #expect(content["body"] as? String == testCase.body, "\(testCase.name)")
                    let attachments = (content["attachments"] as? [[String: Any]]) ?? []
                    if testCase.outcome == "completed" && testCase.body == "Your order shipped" {
                        #expect(attachments.first?["type"] as? String == "public.jpeg")
                    } else {
                        #expect(attachments.isEmpty, "\(testCase.name): \(attachments)")
                    }
                    if testCase.outcome == "expired" {
                        let took = try #require(run["durationMs"] as? Int)
                        // The budget ended it (the outcome says so; the media's 5 s delay would have completed it), not
                        // before its 2 s were spent.
                        #expect(took >= 2000, "the budget: \(took) ms")
                    }
                }
            }
        }
    }

    /// Sailthru payloads: `_st`'s keys (paths after the media server's address) and the attachment that must result.
    static let sailthruCases: [(name: String, st: String, type: String?, refusal: Int?)] = [
        ("the video is preferred over the image", #"{"image_url":"MEDIA/media/sample.jpg","video_url":"MEDIA/media/sample.mp4"}"#,
         "public.mpeg-4", nil),
        ("an image alone is attached", #"{"image_url":"MEDIA/media/sample.jpg"}"#, "public.jpeg", nil),
        ("the Content-Type decides the file's type, before the URL", #"{"image_url":"MEDIA/media/sample.jpg?type=image/png"}"#,
         "public.png", 105),
    ]

    @Test("Sailthru: _st.video_url before _st.image_url, the type from the Content-Type", arguments: sailthruCases.indices)
    func sailthru(_ index: Int) async throws {
        let testCase = Self.sailthruCases[index]
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.sailthru)]) { device in
                    let st = testCase.st.replacingOccurrences(of: "MEDIA", with: media)
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"New video","body":"Watch it"},"mutable-content":1},"_st":\##(st)}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed", "\(testCase.name)")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["kind"] as? String == "sailthru")
                    #expect(run["outcome"] as? String == "completed", "\(testCase.name): \(run)")
                    let content = try #require(record["content"] as? [String: Any])
                    // A refused attachment is listed beside the extension's outcome, not in what the device shows.
                    let shown = (content["attachments"] as? [[String: Any]]) ?? []
                    let refused = (run["refusedAttachments"] as? [[String: Any]]) ?? []
                    #expect((shown.count, refused.count) == (testCase.refusal == nil ? (1, 0) : (0, 1)), "\(testCase.name): \(record)")
                    let attachment = try #require((shown + refused).first, "\(testCase.name): \(record)")
                    #expect(attachment["type"] as? String == testCase.type, "\(testCase.name): \(attachment)")
                    #expect((attachment["refusal"] as? [String: Any])?["code"] as? Int == testCase.refusal, "\(testCase.name): \(attachment)")
                    #expect(content["body"] as? String == "Watch it")
                }
            }
        }
    }

    @Test("iOS skips the extension, and the record says why: no mutable-content, or a deployment target above the device's iOS")
    func notLaunched() async throws {
        let tooNew = appWithExtension(.braze) { $0.deploymentTarget = "19.0" }
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [tooNew]) { device in
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"\##(media)/media/sample.jpg","type":"jpg"}}}"##,
                                                     harness: harness, device: device)
                    #expect(record["outcome"] as? String == "displayed")
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["ran"] as? Bool == false)
                    #expect(run["outcome"] as? String == "notLaunched")
                    #expect(run["diagnostic"] as? String == "extension not launched: its deployment target 19.0 is above the device's 18.1")
                    #expect(((record["content"] as? [String: Any])?["attachments"] as? [Any])?.isEmpty != false)
                }
                try await withDevice(harness, id: "device-2", dataDirectory: temporaryDirectory(), apps: [appWithExtension(.braze)]) { device in
                    let record = try await Self.send(##"{"aps":{"alert":{"title":"Sale","body":"50% off"}},"ab":{"att":{"url":"\##(media)/media/sample.jpg","type":"jpg"}}}"##,
                                                     harness: harness, device: device)
                    let run = try #require(record["extension"] as? [String: Any])
                    #expect(run["outcome"] as? String == "notLaunched")
                    #expect((run["diagnostic"] as? String)?.contains("mutable-content") == true)
                }
            }
        }
    }
}
