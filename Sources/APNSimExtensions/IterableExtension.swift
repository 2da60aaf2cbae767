import APNSimCore
import Foundation

/// Iterable's `ITBNotificationServiceExtension`: `itbl.attachment-url` is downloaded and saved under the response's
/// suggested file name. On failure, and at expiry, its best attempt (the text as sent) is shown.
struct IterableExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let url = content.userInfo["itbl"]?["attachment-url"]?.string, !url.isEmpty else {
            return .original("no itbl.attachment-url string in the payload: Iterable shows the push as sent")
        }
        do {
            let file = try await context.attach(url) { ($0.suggestedFilename as NSString).pathExtension }
            return .attaching(file, to: content, what: url)
        } catch {
            return .original("\(error.description); Iterable shows its best attempt, the text as sent")
        }
    }
}
