import APNSimCore
import Foundation

/// Firebase Cloud Messaging's `FIRMessagingExtensionHelper`: `fcm_options.image` is downloaded and saved with the
/// extension of the response's suggested file name. Any failure delivers the push without media.
struct FirebaseExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let url = content.userInfo["fcm_options"]?["image"]?.string, !url.isEmpty else {
            return .original("no fcm_options.image string in the payload: Firebase shows the push as sent")
        }
        do {
            let file = try await context.attach(url) { ($0.suggestedFilename as NSString).pathExtension }
            return .attaching(file, to: content, what: url)
        } catch {
            return .original("\(error.description); Firebase shows the push without media")
        }
    }
}
