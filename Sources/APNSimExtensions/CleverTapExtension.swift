import APNSimRules
import Foundation

/// CleverTap's `CTNotificationServiceExtension`: `ct_mediaUrl` is attached only with `ct_mediaType`, which names
/// the file's extension (`image` → jpg, `video` → mp4, `audio` → mp3, anything else as given, such as `gif`).
struct CleverTapExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let url = content.userInfo["ct_mediaUrl"]?.string, !url.isEmpty else {
            return .original("no ct_mediaUrl string in the payload: CleverTap shows the push as sent")
        }
        guard let type = content.userInfo["ct_mediaType"]?.string, !type.isEmpty else {
            return .original("ct_mediaUrl without a ct_mediaType string: CleverTap needs both and shows the push as sent")
        }
        let fileExtension = ["image": "jpg", "video": "mp4", "audio": "mp3"][type.lowercased()] ?? type
        do {
            return .attaching(try await context.attach(url, fileExtension: fileExtension), to: content, what: url)
        } catch {
            return .original("\(error.description); CleverTap shows its best attempt, the text as sent")
        }
    }
}
