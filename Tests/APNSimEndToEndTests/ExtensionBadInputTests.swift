import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// What goes wrong between the extension and the media, and at install: each gets a sentence on the record, the
/// original content, and the next push still works.
@Suite("Service extensions: bad media and bad manifests", .endToEnd)
struct ExtensionBadInputTests {
    /// A Braze `ab.att` (`MEDIA` is the media server), and what the record must show.
    static let media: [(name: String, att: String, refusal: Int?, diagnostic: String)] = [
        ("a 12 MB PNG", #"{"url":"MEDIA/media/sample.png?size=12000000","type":"png"}"#, 102, "over the 10000000-byte limit"),
        ("a 1 GB body", #"{"url":"MEDIA/media/sample.mp4?size=1000000000","type":"mp4"}"#, nil, "sent more than 50000000 bytes"),
        ("a body cut short", #"{"url":"MEDIA/media/sample.jpg?truncate=100","type":"jpg"}"#, nil, "cannot download"),
        ("a redirect loop", #"{"url":"MEDIA/media/sample.jpg?redirect=loop","type":"jpg"}"#, nil, "redirects loop"),
        ("a GIF claimed to be a JPEG", #"{"url":"MEDIA/media/sample.gif","type":"jpg"}"#, 105, "not public.jpeg"),
        ("vendor keys of the wrong type", #"5"#, nil, "no url"),
    ]

    @Test("Bad media: a clear sentence, the original content, and the next push is attached", arguments: media.indices)
    func badMedia(_ index: Int) async throws {
        let bad = Self.media[index]
        try await withExtensionWorld(appWithExtension(.braze)) { send in
            let delivery = try await send(richPush(#""ab":{"att":\#(bad.att)}"#))
            #expect(delivery.outcome == "displayed", "\(bad.name)")
            #expect(delivery.diagnostic.contains(bad.diagnostic), "\(bad.name): \(delivery.run)")
            #expect(delivery.content["body"] as? String == "World")
            #expect(delivery.refusalCodes == (bad.refusal.map { [$0] } ?? []), "\(bad.name): \(delivery.run)")
            #expect(delivery.attachments.isEmpty, "\(bad.name): the content lists only what is shown: \(delivery.attachments)")
            let next = try await send(richPush(#""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#))
            #expect(next.attachments.first?["type"] as? String == "public.jpeg", "after \(bad.name): \(next.run)")
        }
    }

    /// Media behaviours an extension's download must get through.
    static let served: [(name: String, path: String)] = [
        ("gzip", "/media/sample.jpg?gzip=1"),
        ("two redirects", "/media/sample.jpg?redirect=2"),
        ("a URL without an extension", "/media/sample"),
    ]

    @Test("Gzip, redirects and extension-less URLs are downloaded as a URLSession would", arguments: served.indices)
    func mediaServed(_ index: Int) async throws {
        let path = Self.served[index].path
        try await withExtensionWorld(appWithExtension(.braze)) { send in
            let delivery = try await send(richPush(#""ab":{"att":{"url":"MEDIA\#(path)","type":"jpg"}}"#))
            #expect(delivery.attachments.first?["type"] as? String == "public.jpeg", "\(path): \(delivery.run)")
            #expect(delivery.attachments.first?["sha256"] as? String == (try fixtureSHA256("sample.jpg")), "\(path)")
        }
    }

    /// Extension manifests iOS or Xcode refuses, and the words of the refusal.
    static let refused: [(name: String, change: @Sendable (inout ServiceExtensionManifest) -> Void, message: String)] = [
        ("a bundle ID without the app's prefix", { $0.bundleID = "com.other.NotificationService" },
         "Embedded binary's bundle identifier is not prefixed with the parent app's bundle identifier."),
        ("another team", { $0.team = "OTHERTEAM1" }, "Embedded binary is not signed with the same certificate as the parent app."),
        ("a wildcard profile", { manifest in
            manifest.profile = ProvisioningProfile(name: "Wildcard", team: TestWorld.team, appID: "\(TestWorld.team).*", kind: .development,
                                                   expires: Date().addingTimeInterval(86_400))
        }, "needs its own explicit App ID and provisioning profile"),
        ("the app's profile", { manifest in
            manifest.profile = ProvisioningProfile(name: "App", team: TestWorld.team, appID: "\(TestWorld.team).com.example.app", kind: .development,
                                                   expires: Date().addingTimeInterval(86_400))
        }, "which does not match the bundle ID \"com.example.app.NotificationService\""),
        ("an unknown extension point", { $0.extensionPoint = "com.example.service" }, "unknown NSExtensionPointIdentifier"),
        ("an App Group its profile lacks", { manifest in
            manifest.appGroups = ["group.com.example.app"]
            manifest.profile = ProvisioningProfile(name: "NSE", team: TestWorld.team, appID: "\(TestWorld.team).com.example.app.NotificationService",
                                                   kind: .development, expires: Date().addingTimeInterval(86_400), appGroups: ["group.other"])
        }, "Provisioning profile \"NSE\" doesn't match the entitlements file's value for the com.apple.security.application-groups entitlement"),
    ]

    @Test("An extension Xcode or iOS would refuse stops the app installing, in their words", arguments: refused.indices)
    func installRefused(_ index: Int) async throws {
        let refusal = Self.refused[index]
        try await withGateway { harness in
            try await withDevice(harness, apps: [appWithExtension(.braze, refusal.change)]) { device in
                let message = try #require(device.refusals["com.example.app"], "\(refusal.name)").description
                #expect(message.contains(refusal.message), "\(refusal.name): \(message)")
                #expect(device.tokens["com.example.app"] == nil)
            }
        }
    }

    @Test("POST /v1/devices/{id}/apps with an extension whose bundle ID lacks the app's prefix answers 422 with Xcode's message")
    func installRefusedOverControlAPI() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let app = appWithExtension(.braze) { $0.bundleID = "com.other.NotificationService" }
                let response = try await harness.control
                    .post("/v1/devices/device-1/apps", String(decoding: try JSONEncoder().encode(app), as: UTF8.self))
                #expect(response.status == 422)
                #expect((response.json as? [String: Any])?["kind"] as? String == "extensionPrefix")
                #expect(((response.json as? [String: Any])?["error"] as? String)?.hasPrefix("Embedded binary's bundle identifier") == true)
            }
        }
    }

    @Test("Alerts off, a content extension's point, or a category the device applies: not launched, and why")
    func notLaunchedBySettings() async throws {
        try await withExtensionWorld(appWithExtension(.braze), configure: { $0.alertsOff = ["com.example.app"] }) { send in
            let delivery = try await send(richPush(#""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#))
            #expect(delivery.run["outcome"] as? String == "notLaunched")
            #expect(delivery.diagnostic.contains("alerts are off"), "\(delivery.run)")
        }
        let contentExtension = appWithExtension(.braze) { $0.extensionPoint = ServiceExtensionManifest.contentExtensionPoint }
        try await withExtensionWorld(contentExtension) { send in
            let delivery = try await send(richPush(#""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#))
            #expect(delivery.run["outcome"] as? String == "notLaunched")
            #expect(delivery.diagnostic.contains("content-extension"), "\(delivery.run)")
        }
        let categories = appWithExtension(.braze) { $0.categories = ["PROMO"] }
        try await withExtensionWorld(categories, configure: { $0.extensionCategoriesApply = true }) { send in
            let other = try await send(richPush(#""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#))
            #expect(other.run["outcome"] as? String == "notLaunched")
            #expect(other.diagnostic.contains("UNNotificationExtensionCategory PROMO"), "\(other.run)")
            let promo = try await send(##"{"aps":{"alert":{"title":"Hi","body":"There"},"category":"PROMO","mutable-content":1},"ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}}"##)
            #expect(promo.run["outcome"] as? String == "completed", "\(promo.run)")
        }
    }
}
