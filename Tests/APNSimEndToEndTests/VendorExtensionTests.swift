import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Each vendor's rich push through its built-in extension kind, and `auto` picking the kind by the payload's keys.
@Suite("Service extensions: vendors and auto", .endToEnd)
struct VendorExtensionTests {
    /// A vendor's payload keys (`MEDIA` is the media server) and the attachment types that must result.
    static let happyPaths: [(kind: ExtensionKind, keys: String, types: [String], body: String)] = [
        (.onesignal, #""att":{"id":"MEDIA/media/sample.jpg"}"#, ["public.jpeg"], "World"),
        (.onesignal, #""att":{"id":"MEDIA/media/sample"}"#, ["public.jpeg"], "World"),  // typed by its Content-Type
        (.firebase, #""fcm_options":{"image":"MEDIA/media/sample.png"}"#, ["public.png"], "World"),
        (.firebase, #""fcm_options":{"image":"MEDIA/media/sample"}"#, ["public.jpeg"], "World"),  // named from its MIME type
        (.airship, #""com.urbanairship.media_attachment":{"url":["MEDIA/media/sample.jpg","MEDIA/media/sample.gif"],"content":{"body":"Rich body"}}"#,
         ["public.jpeg", "com.compuserve.gif"], "Rich body"),
        (.airship, #""com.urbanairship.media_attachment":{"urls":[{"url":"MEDIA/media/sample?type=application/octet-stream","url_id":"a"}]}"#,
         ["public.jpeg"], "World"),  // typed by its magic bytes
        (.iterable, #""itbl":{"attachment-url":"MEDIA/media/sample.mp4","messageId":"m1"}"#, ["public.mpeg-4"], "World"),
        (.clevertap, #""ct_mediaUrl":"MEDIA/media/sample.jpg","ct_mediaType":"image""#, ["public.jpeg"], "World"),
        (.clevertap, #""ct_mediaUrl":"MEDIA/media/sample.gif","ct_mediaType":"gif""#, ["com.compuserve.gif"], "World"),
        (.braze, #""ab":{"att":{"url":"MEDIA/media/sample.m4a","type":"m4a"}}"#, ["public.mpeg-4-audio"], "World"),
    ]

    @Test("OneSignal, Firebase, Airship, Iterable and CleverTap: the media is downloaded, typed as the SDK does, attached",
          arguments: happyPaths.indices)
    func happyPath(_ index: Int) async throws {
        let path = Self.happyPaths[index]
        try await withExtensionWorld(appWithExtension(path.kind)) { send in
            let delivery = try await send(richPush(path.keys))
            #expect(delivery.outcome == "displayed")
            #expect(delivery.run["kind"] as? String == path.kind.rawValue)
            #expect(delivery.run["outcome"] as? String == "completed", "\(delivery.run)")
            #expect(delivery.attachments.map { $0["type"] as? String } == path.types, "\(path.keys): \(delivery.run)")
            #expect(delivery.refused.isEmpty, "\(delivery.run)")
            #expect(delivery.content["body"] as? String == path.body)
        }
    }

    @Test("CleverTap needs ct_mediaType; an audio type names the file .mp3, so an M4A is refused as not what it claims")
    func cleverTapTypes() async throws {
        try await withExtensionWorld(appWithExtension(.clevertap)) { send in
            let untyped = try await send(richPush(#""ct_mediaUrl":"MEDIA/media/sample.jpg""#))
            #expect(untyped.diagnostic.contains("ct_mediaType"), "\(untyped.run)")
            #expect(untyped.attachments.isEmpty)
            let audio = try await send(richPush(#""ct_mediaUrl":"MEDIA/media/sample.m4a","ct_mediaType":"audio""#))
            #expect(audio.refusalCodes == [105] && audio.attachments.isEmpty, "\(audio.record)")
        }
    }

    /// The payload of each vendor guide apnsim reproduces, and the kind `auto` must pick for it.
    static let seedPayloads: [(kind: String, pickedBy: String?, keys: String, type: String?)] = [
        ("braze", "ab", #""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#, "public.jpeg"),
        ("salesforce", "_mediaUrl", #""_mediaUrl":"MEDIA/media/sample.gif","_mediaAlt":"A GIF""#, "com.compuserve.gif"),
        ("sailthru", "_st", #""_st":{"image_url":"MEDIA/media/sample.jpg","video_url":"MEDIA/media/sample.mp4"}"#, "public.mpeg-4"),
        ("onesignal", "att", #""att":{"id":"MEDIA/media/sample.png"}"#, "public.png"),
        ("auto", nil, #""custom":{"deal":"42"}"#, nil),
    ]

    @Test("auto on the sandbox app picks the vendor by the payload's keys and records which", arguments: seedPayloads.indices)
    func auto(_ index: Int) async throws {
        let seed = Self.seedPayloads[index]
        // The sandbox world as it ships (its app's extension is kind auto), started by APNSimTesting.
        try await SimulatedWorld.run { world in
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let response = try await world.send(richPush(seed.keys.replacingOccurrences(of: "MEDIA", with: world.mediaURL)), to: token)
            let delivery = try await world.delivery(apnsID: try #require(response["apns-id"]))
            let run = try #require(delivery.extensionRun)
            #expect(run.kind?.rawValue == seed.kind, "\(run)")
            #expect(run.pickedBy == seed.pickedBy)
            #expect(run.diagnostic.hasPrefix(seed.pickedBy.map { "auto picked \(seed.kind) by the payload's \($0) key" } ?? "auto found no vendor's keys"),
                    "\(run)")
            #expect(delivery.content?.attachments.first?.type == seed.type, "\(delivery.content?.attachments ?? [])")
            #expect(delivery.content?.title == "Hello")
        }
    }

    @Test("Salesforce: a _mediaUrl that is a file name is taken from the app bundle's resources; a missing one shows _mediaAlt")
    func salesforceBundled() async throws {
        let resources = URL(fileURLWithPath: temporaryDirectory())
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("Scenarios/media/sample.gif"),
                                         to: resources.appendingPathComponent("promo.gif"))
        var app = appWithExtension(.salesforce)
        app.resources = resources.path
        try await withExtensionWorld(app) { send in
            let bundled = try await send(richPush(#""_mediaUrl":"promo.gif","_mediaAlt":"A GIF""#))
            #expect(bundled.run["outcome"] as? String == "completed")
            #expect(bundled.attachments.first?["type"] as? String == "com.compuserve.gif", "\(bundled.run)")
            #expect(bundled.attachments.first?["sha256"] as? String == (try fixtureSHA256("sample.gif")))
            #expect(bundled.content["body"] as? String == "World")
            let missing = try await send(richPush(#""_mediaUrl":"absent.gif","_mediaAlt":"A GIF""#))
            #expect(missing.content["body"] as? String == "A GIF")
            #expect(missing.diagnostic.contains("absent.gif is not in the app bundle"), "\(missing.run)")
        }
    }
}
