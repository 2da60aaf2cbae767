import APNSimCore
import Foundation

/// Salesforce Marketing Cloud MobilePush's extension: `_mediaUrl` is downloaded, saved under the URL's last path
/// component and attached; when that fails, or time runs out, a non-empty `_mediaAlt` replaces the body.
struct SalesforceExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult {
        guard let url = content.userInfo["_mediaUrl"]?.string, !url.isEmpty else {
            return .original("no _mediaUrl string in the payload: MobilePush shows the push as sent")
        }
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") else {
            return withAlt(content, "_mediaUrl \(url) is not an http(s) URL (media bundled with the app is not simulated yet)")
        }
        do {
            let file = try await context.attach(url, fileExtension: parsed.pathExtension)
            guard let refusal = file.refusal else { return .attaching(file, to: content, what: url) }
            var result = withAlt(content, "iOS refused the attachment (\(refusal))")
            result.content.attachments = [file]
            return result
        } catch {
            return withAlt(content, error.description)
        }
    }

    func willExpire(_ content: NotificationContent) -> ExtensionResult {
        withAlt(content, "nothing was attached")
    }

    /// The content with `_mediaAlt` as its body when the payload has one; the original otherwise.
    private func withAlt(_ content: NotificationContent, _ why: String) -> ExtensionResult {
        guard let alt = content.userInfo["_mediaAlt"]?.string, !alt.isEmpty else {
            return .original("\(why); no _mediaAlt, so the original content is shown")
        }
        var changed = content
        changed.body = alt
        return .init(content: changed, diagnostic: "\(why); _mediaAlt is shown as the body")
    }
}
