import APNSimRules
import Foundation

/// OneSignal's extension (`OneSignalAttachmentHandler`): every entry of `att` (`{"id": "url"}`, also under
/// `os_data`) is attached. The file's extension is the first of: the `?filename=` query value's, the
/// Content-Type's, the URL path's, any query value's; one outside OneSignal's list is skipped. A value that is not
/// an http(s) URL names a file in the app bundle. At expiry the media is dropped and the text shown as sent.
///
/// Its buttons: a push whose payload lists `buttons` (`os_data.buttons` in the newer format), each `{"i": id, "n":
/// title}`, gets a category of its own, `__onesignal__dynamic__` and the notification's ID `i`, registered beside the
/// app's, whose buttons open the app (OneSignal/OneSignal-iOS-SDK, `OSNotification.m` `parseActionButtons:`,
/// `OneSignalNotificationCategoryController.m`).
struct OneSignalExtension: BuiltInExtension {
    /// The extensions OneSignal's SDK accepts (`ONESIGNAL_SUPPORTED_ATTACHMENT_TYPES`).
    static let supported: Set<String> = ["aiff", "wav", "mp3", "mp4", "jpg", "jpeg", "png", "gif", "mpeg", "mpg", "avi", "m4a", "m4v"]

    func didReceive(_ original: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        let (content, categoryNote) = Self.categorized(original, context: context)
        guard var result = await attach(content, context: context) else { return nil }
        result.diagnostic += categoryNote
        // Shown without media, the push still has its category: the SDK sets it on the content it hands back.
        if result.showsOriginal, content.category != original.category { (result.content, result.showsOriginal) = (content, false) }
        return result
    }

    /// The content with the category of its payload's buttons, registered beside the app's, and a note saying so.
    static func categorized(_ content: NotificationContent, context: ExtensionContext) -> (NotificationContent, String) {
        let fields = content.userInfo["os_data"] ?? content.userInfo["custom"]
        let buttons = (content.userInfo["os_data"]?["buttons"] ?? content.userInfo["buttons"])?.array ?? []
        guard !buttons.isEmpty, let id = fields?["i"]?.string else { return (content, "") }
        let actions = buttons.compactMap { button -> NotificationCategory.Action? in
            guard let title = button["n"]?.string else { return nil }
            return NotificationCategory.Action(identifier: button["i"]?.string ?? title, title: title, options: ["foreground"])
        }
        let identifier = "__onesignal__dynamic__\(id)"
        context.register(context.categories.filter { $0.identifier != identifier } + [NotificationCategory(identifier: identifier, actions: actions)])
        var categorized = content
        categorized.category = identifier
        return (categorized, "; registered category \(identifier) with \(actions.count) button(s) from the payload's buttons")
    }

    private func attach(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        guard let att = content.userInfo["att"] ?? content.userInfo["os_data"]?["att"] else {
            return .original("no att in the payload: OneSignal shows the push as sent")
        }
        guard case .object(let entries) = att, !entries.isEmpty else {
            return .original("att is not an object of {id: url}: OneSignal shows the push as sent")
        }
        var files: [NotificationContent.Attachment] = []
        var skipped: [String] = []
        for (id, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard let url = value.string else {
                skipped.append("att.\(id) is not a string")
                continue
            }
            do {
                if let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? "") {
                    let query = URLComponents(string: url)?.queryItems ?? []
                    files.append(try await context.attach(url, as: "\(context.deliveryID)-\(id)") { response in
                        Self.fileExtension(url: parsed, query: query, mime: response.mimeType)
                    })
                } else {
                    files.append(try await context.attachBundled(url))
                }
            } catch {
                skipped.append(error.description)
            }
        }
        // A file none of whose names gives a supported extension was saved without one; OneSignal skips it.
        let accepted = files.filter { $0.refusal?.code != .unrecognizedType }
        skipped += files.filter { $0.refusal?.code == .unrecognizedType }.map { "\($0.url ?? "") has no supported file type" }
        guard !accepted.isEmpty else {
            return .original("nothing attached (\(skipped.joined(separator: "; "))); OneSignal shows the original content")
        }
        var result = ExtensionResult.attaching(accepted, to: content, what: accepted.compactMap(\.url).joined(separator: ", "))
        if !skipped.isEmpty { result.diagnostic += "; skipped: " + skipped.joined(separator: "; ") }
        return result
    }

    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        .original("OneSignal drops the media and shows the text as sent")
    }

    /// OneSignal's order: `?filename=`'s extension, the MIME type's, the URL path's, any query value's.
    static func fileExtension(url: URL, query: [URLQueryItem], mime: String?) -> String {
        let named = query.first { $0.name == "filename" }?.value.map { ($0 as NSString).pathExtension.lowercased() }
        var candidates = [named, mime.flatMap(AttachmentRules.fileExtension(forMIME:)), url.pathExtension.lowercased()]
        candidates += query.compactMap { $0.value.map { ($0 as NSString).pathExtension.lowercased() } }
        return candidates.compactMap { $0 }.first { supported.contains($0) } ?? ""
    }
}
