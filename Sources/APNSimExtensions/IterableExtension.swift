import APNSimRules
import Foundation

/// Iterable's `ITBNotificationServiceExtension` (Iterable/iterable-swift-sdk, `notification-extension/`): it attaches
/// `itbl.attachment-url` as ``SuggestedNameExtension`` does for Firebase, and, for a push that names no category,
/// registers one for the message, its identifier `itbl.messageId` and its buttons `itbl.actionButtons`, beside the
/// app's own, and gives the push that category (`resolveCategory(from:)` in `ITBNotificationServiceExtension.swift`,
/// `getNotificationActions(from:)` in `NotificationContentParser.swift`). A button's options are Iterable's: `destructive`
/// for `buttonType: destructive`; `foreground` and `authenticationRequired` when it opens the app (`openApp`, true when
/// absent); `authenticationRequired` for `requiresUnlock`. `buttonType: textInput` is a text-input action with its
/// `inputTitle` and `inputPlaceholder`.
struct IterableExtension: BuiltInExtension {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        var categorized = content
        var categoryNote = ""
        if content.category?.isEmpty ?? true, case .object(let itbl)? = content.userInfo["itbl"], let messageID = itbl["messageId"]?.string {
            let category = NotificationCategory(identifier: messageID, actions: (itbl["actionButtons"]?.array ?? []).compactMap(Self.action))
            context.register(context.categories.filter { $0.identifier != messageID } + [category])
            categorized.category = messageID
            categoryNote = "; registered category \(messageID) with \(category.actions.count) button(s) from itbl.actionButtons"
        }
        guard var result = await SuggestedNameExtension.iterable.didReceive(categorized, context: context) else { return nil }
        result.diagnostic += categoryNote
        // Shown without media, the push still has its category: the SDK sets it on the content it hands back.
        if result.showsOriginal, categorized.category != content.category { (result.content, result.showsOriginal) = (categorized, false) }
        return result
    }

    /// One of `itbl.actionButtons`, as `createNotificationActionButton(from:)` makes it; `nil` without an identifier and a title.
    static func action(_ button: JSONValue) -> NotificationCategory.Action? {
        guard let identifier = button["identifier"]?.string, let title = button["title"]?.string else { return nil }
        let type = button["buttonType"]?.string ?? "default"
        let opensApp = flag(button["openApp"]) ?? true
        var options: [String] = []
        if type == "destructive" { options.append("destructive") }
        if opensApp { options.append("foreground") }
        if opensApp || flag(button["requiresUnlock"]) == true { options.append("authenticationRequired") }
        let textInput = type == "textInput"
            ? NotificationCategory.Action.TextInput(buttonTitle: button["inputTitle"]?.string ?? "", placeholder: button["inputPlaceholder"]?.string ?? "")
            : nil
        return NotificationCategory.Action(identifier: identifier, title: title, options: options, textInput: textInput)
    }

    /// A JSON Boolean, or a number read as one (the SDK reads `NSNumber.boolValue`).
    private static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .number(let number)?: number != 0
        default: nil
        }
    }
}
