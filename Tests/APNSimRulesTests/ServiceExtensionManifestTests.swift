import APNSimRules
import Foundation
import Testing

/// When iOS skips an app's service extension, and the sentence the record gives for it.
@Suite("Service extension launch")
struct ServiceExtensionManifestTests {
    static let manifest = ServiceExtensionManifest(bundleID: "com.example.app.NotificationService", kind: .braze)

    static func payload(_ json: String) throws -> PushPayload {
        try PushPayload(json: Array(json.utf8))
    }

    @Test("A mutable-content alert with text launches it; the deployment target compares as a version")
    func launched() throws {
        let rich = try Self.payload(#"{"aps":{"alert":"Hi","mutable-content":1}}"#)
        #expect(Self.manifest.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1") == nil)
        var targeted = Self.manifest
        targeted.deploymentTarget = "17"
        #expect(targeted.reasonNotLaunched(payload: rich, deviceOS: "iOS 17.0") == nil)
        targeted.deploymentTarget = "16.10"
        #expect(targeted.reasonNotLaunched(payload: rich, deviceOS: "iOS 16.9") != nil, "16.10 is above 16.9")
    }

    @Test("Each reason iOS skips it is named")
    func notLaunched() throws {
        let plain = try Self.payload(#"{"aps":{"alert":"Hi"}}"#)
        #expect(Self.manifest.reasonNotLaunched(payload: plain, deviceOS: "iOS 18.1")?.contains("mutable-content") == true)
        let badgeOnly = try Self.payload(#"{"aps":{"badge":3,"mutable-content":1}}"#)
        #expect(Self.manifest.reasonNotLaunched(payload: badgeOnly, deviceOS: "iOS 18.1")?.contains("no alert text") == true)
        let rich = try Self.payload(#"{"aps":{"alert":"Hi","mutable-content":1}}"#)
        var notEmbedded = Self.manifest
        notEmbedded.embedded = false
        #expect(notEmbedded.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1")?.contains("not embedded") == true)
        var tooNew = Self.manifest
        tooNew.deploymentTarget = "17.0"
        #expect(tooNew.reasonNotLaunched(payload: rich, deviceOS: "iOS 16.4")
                == "extension not launched: its deployment target 17.0 is above the device's 16.4")
    }

    @Test("A manifest without embedded or deploymentTarget decodes as embedded, for any iOS")
    func decodesDefaults() throws {
        let decoded = try JSONDecoder().decode(ServiceExtensionManifest.self,
                                               from: Data(#"{"bundleID":"com.example.app.NotificationService","kind":"braze"}"#.utf8))
        #expect(decoded == Self.manifest)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(ServiceExtensionManifest.self, from: Data(#"{"bundleID":"x","kind":"nokia"}"#.utf8))
        }
    }

    @Test("UNNotificationExtensionCategory reads as a string or an array; a budget or memory limit out of range is refused")
    func decodesInfoPlistForms() throws {
        let one = try JSONDecoder().decode(ServiceExtensionManifest.self,
                                           from: Data(#"{"bundleID":"a.b.c","kind":"auto","categories":"PROMO","budget":2.5}"#.utf8))
        #expect(one.categories == ["PROMO"])
        #expect(one.budget == 2.5)
        #expect(one.extensionPoint == ServiceExtensionManifest.serviceExtensionPoint)
        #expect(one.memoryLimitMiB == 24)
        for bad in [#""budget":0"#, #""budget":9999"#, #""memoryLimitMiB":0"#] {
            #expect(throws: DecodingError.self, "\(bad)") {
                try JSONDecoder().decode(ServiceExtensionManifest.self, from: Data(#"{"bundleID":"a.b.c","kind":"braze",\#(bad)}"#.utf8))
            }
        }
    }

    @Test("Alerts off, a non-service extension point and a category the device applies each stop the launch")
    func deviceSettings() throws {
        let rich = try Self.payload(#"{"aps":{"alert":"Hi","mutable-content":1,"category":"NEWS"}}"#)
        #expect(Self.manifest.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1", settings: .init(alertsEnabled: false))?
            .contains("alerts are off") == true)
        var content = Self.manifest
        content.extensionPoint = ServiceExtensionManifest.contentExtensionPoint
        #expect(content.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1")?.contains("NSExtensionPointIdentifier") == true)
        var categorized = Self.manifest
        categorized.categories = ["PROMO"]
        #expect(categorized.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1") == nil, "iOS ignores the key")
        #expect(categorized.reasonNotLaunched(payload: rich, deviceOS: "iOS 18.1", settings: .init(categoriesApply: true))?
            .contains("category NEWS") == true)
    }
}
