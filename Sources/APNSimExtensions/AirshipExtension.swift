import APNSimRules
import Foundation

/// Airship's `UANotificationServiceExtension`: `com.urbanairship.media_attachment` names one or more URLs (`url`, a
/// string or an array, or `urls: [{url, url_id}]`), downloaded side by side and each attached; its `content`
/// (`title`, `subtitle`, `body`) replaces the text. A file is named by the URL's last path component; without a
/// supported extension the MIME type decides, then the file's magic bytes. At expiry its best attempt is shown:
/// the replaced text, without media.
struct AirshipExtension: BuiltInExtension {
    static let key = "com.urbanairship.media_attachment"

    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let media = content.userInfo[Self.key], case .object = media else {
            return .original("no \(Self.key) object in the payload: Airship shows the push as sent")
        }
        let text = Self.withText(content, media)
        let urls = Self.urls(media)
        guard !urls.isEmpty else {
            return .init(content: text, diagnostic: "\(Self.key) names no URL: Airship shows its text without media")
        }
        let outcomes = await withTaskGroup(of: (Int, Result<NotificationContent.Attachment, ExtensionError>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask {
                    do throws(ExtensionError) {
                        return (index, .success(try await context.attach(url, as: "\(context.deliveryID)-\(index)", fileExtension: Self.fileExtension)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        let files = urls.indices.compactMap { try? outcomes[$0]?.get() }
        let failures = urls.indices.compactMap { index -> String? in
            guard case .failure(let error) = outcomes[index] else { return nil }
            return error.description
        }
        guard !files.isEmpty else {
            return .init(content: text, diagnostic: "\(failures.joined(separator: "; ")); Airship shows its text without media")
        }
        var result = ExtensionResult.attaching(files, to: text, what: urls.joined(separator: ", "))
        if !failures.isEmpty { result.diagnostic += "; not attached: " + failures.joined(separator: "; ") }
        return result
    }

    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        let text = content.userInfo[Self.key].map { Self.withText(content, $0) } ?? content
        return .init(content: text, diagnostic: "Airship cancels its downloads and shows its best attempt, without media")
    }

    /// `url` (a string or an array of strings) or `urls` (`[{url, url_id}]`).
    static func urls(_ media: JSONValue) -> [String] {
        switch media["url"] {
        case .string(let url): return [url]
        case .array(let urls): return urls.compactMap(\.string)
        default: break
        }
        guard case .array(let entries) = media["urls"] else { return [] }
        return entries.compactMap { $0["url"]?.string }
    }

    /// The content with `content.title`, `subtitle` and `body` of the media object replacing the push's.
    static func withText(_ content: NotificationContent, _ media: JSONValue) -> NotificationContent {
        var changed = content
        if let title = media["content"]?["title"]?.string { changed.title = title }
        if let subtitle = media["content"]?["subtitle"]?.string { changed.subtitle = subtitle }
        if let body = media["content"]?["body"]?.string { changed.body = body }
        return changed
    }

    /// The URL's extension when supported, else the MIME type's, else the one the bytes show.
    @Sendable static func fileExtension(_ response: DownloadResponse) -> String {
        let named = URL(string: response.url)?.pathExtension.lowercased() ?? ""
        if AttachmentRules.fileType(forExtension: named) != nil { return named }
        return response.mimeType.flatMap(AttachmentRules.fileExtension(forMIME:)) ?? AttachmentRules.sniff(response.bytes) ?? named
    }
}
