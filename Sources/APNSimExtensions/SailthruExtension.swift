import APNSimRules
import Foundation

/// Sailthru's (Marigold's) extension: the payload's `_st` names a video and an image; the video is preferred. The
/// file's extension comes from the response's Content-Type, then the URL's path, else `jpg`. On failure the push is
/// shown as sent.
struct SailthruExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        let st = content.userInfo["_st"]
        let video = st?["video_url"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        let image = st?["image_url"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        guard let url = video ?? image else {
            return .original("no _st.video_url or _st.image_url string in the payload: Sailthru shows the push as sent")
        }
        let which = video != nil ? "_st.video_url" : "_st.image_url"
        let pathExtension = URL(string: url)?.pathExtension ?? ""
        do {
            let file = try await context.attach(url) { response in
                Self.fileExtension(contentType: response.contentType) ?? (pathExtension.isEmpty ? "jpg" : pathExtension)
            }
            return .attaching(file, to: content, what: "\(which) \(url)")
        } catch {
            return .original("\(error.description); Sailthru shows the original content")
        }
    }

    /// The extension Sailthru's SDK gives a MIME type: the types Apple lists, plus some iOS then refuses.
    static func fileExtension(contentType: String?) -> String? {
        guard let contentType else { return nil }
        let mime = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return ["image/webp": "webp", "video/quicktime": "mov"][mime] ?? AttachmentRules.fileExtension(forMIME: contentType)
    }
}
