import APNSimRules
import Foundation

/// Salesforce Marketing Cloud MobilePush's extension: `_mediaUrl` is downloaded, saved under the URL's last path
/// component and attached, or, when it is not an http(s) URL, taken from the app bundle by its file name; when that
/// fails, or time runs out, a non-empty `_mediaAlt` replaces the body.
struct SalesforceExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let url = content.userInfo["_mediaUrl"]?.string, !url.isEmpty else {
            return .original("no _mediaUrl string in the payload: MobilePush shows the push as sent")
        }
        do {
            let file: NotificationContent.Attachment
            if let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") {
                file = try await context.attach(url, fileExtension: parsed.pathExtension)
            } else {
                file = try await context.attachBundled(url)
            }
            guard let refusal = file.refusal else { return .attaching(file, to: content, what: url) }
            var result = withAlt(content, "iOS refused \(url) (\(refusal))")
            result.content.attachments = [file]
            return result
        } catch {
            return withAlt(content, error.description)
        }
    }

    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
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
