import APNSimRules
import Foundation

/// The extensions that download one URL from the payload and name the file by the response's suggested file name,
/// showing the push without media on any failure: Firebase Cloud Messaging's `FIRMessagingExtensionHelper`
/// (`fcm_options.image`) and Iterable's `ITBNotificationServiceExtension` (`itbl.attachment-url`).
struct SuggestedNameExtension: BuiltInExtension {
    var vendor: String
    /// The payload key holding an object, and the key in it holding the URL.
    var key: (object: String, url: String)

    static let firebase = SuggestedNameExtension(vendor: "Firebase", key: ("fcm_options", "image"))
    static let iterable = SuggestedNameExtension(vendor: "Iterable", key: ("itbl", "attachment-url"))

    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let url = content.userInfo[key.object]?[key.url]?.string, !url.isEmpty else {
            return .original("no \(key.object).\(key.url) string in the payload: \(vendor) shows the push as sent")
        }
        do {
            let file = try await context.attach(url) { ($0.suggestedFilename as NSString).pathExtension }
            return .attaching(file, to: content, what: url)
        } catch {
            return .original("\(error.description); \(vendor) shows the push without media")
        }
    }
}
