import APNSimDevice
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// One push through the whole chain to an app with a service extension: the delivery record, its `extension`
/// object and its content.
struct ExtensionDelivery {
    var record: [String: Any]
    var run: [String: Any]
    var content: [String: Any]

    var outcome: String? { record["outcome"] as? String }
    var diagnostic: String { run["diagnostic"] as? String ?? "" }
    var attachments: [[String: Any]] { content["attachments"] as? [[String: Any]] ?? [] }
    /// What iOS refused of what the extension handed over (`extension.refusedAttachments`), each with its `refusal`.
    var refused: [[String: Any]] { run["refusedAttachments"] as? [[String: Any]] ?? [] }
    var refusalCodes: [Int] { refused.compactMap { ($0["refusal"] as? [String: Any])?["code"] as? Int } }
}

/// `com.example.app` embedding `com.example.app.NotificationService` of `kind`, changed by `change`.
func appWithExtension(_ kind: ExtensionKind, _ change: (inout ServiceExtensionManifest) -> Void = { _ in }) -> AppManifest {
    var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
    var manifest = ServiceExtensionManifest(bundleID: "com.example.app.NotificationService", kind: kind)
    change(&manifest)
    app.serviceExtension = manifest
    return app
}

/// Sends `payload` (`MEDIA` standing for the media server's address) to the device's app and returns what it
/// recorded.
func sendToExtension(_ payload: String, media: String, harness: GatewayHarness, device: DeviceHost) async throws -> ExtensionDelivery {
    let record = try await ServiceExtensionTests.send(payload.replacingOccurrences(of: "MEDIA", with: media), harness: harness, device: device)
    return ExtensionDelivery(record: record, run: record["extension"] as? [String: Any] ?? [:],
                             content: record["content"] as? [String: Any] ?? [:])
}

/// A media server, a gateway and a device with `app`, for `body`. The budget and the grace at expiry are the hang
/// guard unless a test is about them: a download or an extension's answer on a busy machine must not run into them.
func withExtensionWorld<T: Sendable>(_ app: AppManifest, budget: Duration = testExtensionBudget, grace: Duration = HangGuard.limit,
                                     configure: @escaping @Sendable (inout DeviceHostConfiguration) -> Void = { _ in },
                                     _ body: @escaping @Sendable (_ send: @escaping @Sendable (String) async throws -> ExtensionDelivery) async throws -> T)
    async throws -> T {
    try await withMediaServer { media in
        try await withGateway { harness in
            try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [app], extensionBudget: budget,
                                 configure: { configuration in
                                     configuration.extensionGrace = grace
                                     configure(&configuration)
                                 }) { device in
                try await body { payload in try await sendToExtension(payload, media: media, harness: harness, device: device) }
            }
        }
    }
}

/// An alert with mutable-content and `extra` top-level keys (JSON members, without braces).
func richPush(_ extra: String, title: String = "Hello", body: String = "World") -> String {
    ##"{"aps":{"alert":{"title":"\##(title)","body":"\##(body)"},"mutable-content":1},\##(extra)}"##
}
