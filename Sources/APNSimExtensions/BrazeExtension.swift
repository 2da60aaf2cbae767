import APNSimRules

/// Braze's rich-push extension: the payload's `ab.att` names a URL and a type; the file is downloaded, saved with
/// the type as its extension and attached. Without a type, or when anything fails, the original content is shown.
struct BrazeExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let attachment = content.userInfo["ab"]?["att"] else {
            return .original("no ab.att in the payload: Braze's extension shows the push as sent")
        }
        guard let url = attachment["url"]?.string else {
            return .original("ab.att has no url string: Braze's extension shows the original content")
        }
        guard let type = attachment["type"]?.string, !type.isEmpty else {
            return .original("ab.att has no type: Braze's extension needs it as the file extension and shows the original content")
        }
        do {
            return .attaching(try await context.attach(url, fileExtension: type), to: content, what: url)
        } catch {
            return .original("\(error.description); Braze's extension shows the original content")
        }
    }
}
