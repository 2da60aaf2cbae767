/// Categories as the extension protocol carries them (docs/extension-protocol.md): the app's, in each `request`, and
/// the extension's `setNotificationCategories(_:)`, as a `categories` message. Each category is
/// `{identifier, actions: [{identifier, title, options, textInput: {buttonTitle, placeholder}, icon}], options,
/// intentIdentifiers, hiddenPreviewsBodyPlaceholder, categorySummaryFormat}`, options by name.
enum WireCategories {
    static let actionOptions: [(String, UNNotificationActionOptions)] = [
        ("authenticationRequired", .authenticationRequired), ("destructive", .destructive), ("foreground", .foreground),
    ]
    static let categoryOptions: [(String, UNNotificationCategoryOptions)] = [
        ("customDismissAction", .customDismissAction), ("allowInCarPlay", .allowInCarPlay),
        ("hiddenPreviewsShowTitle", .hiddenPreviewsShowTitle), ("hiddenPreviewsShowSubtitle", .hiddenPreviewsShowSubtitle),
        ("allowAnnouncement", .allowAnnouncement),
    ]

    /// `categories` as JSON objects, by identifier.
    static func json(from categories: Set<UNNotificationCategory>) -> [[String: Any]] {
        categories.sorted { $0.identifier < $1.identifier }.map { category in
            var object: [String: Any] = [
                "identifier": category.identifier,
                "actions": category.actions.map(json(from:)),
                "options": categoryOptions.filter { category.options.contains($0.1) }.map(\.0),
                "intentIdentifiers": category.intentIdentifiers,
            ]
            if !category.hiddenPreviewsBodyPlaceholder.isEmpty { object["hiddenPreviewsBodyPlaceholder"] = category.hiddenPreviewsBodyPlaceholder }
            if !category.categorySummaryFormat.isEmpty { object["categorySummaryFormat"] = category.categorySummaryFormat }
            return object
        }
    }

    static func json(from action: UNNotificationAction) -> [String: Any] {
        var object: [String: Any] = ["identifier": action.identifier, "title": action.title,
                                     "options": actionOptions.filter { action.options.contains($0.1) }.map(\.0)]
        if let input = action as? UNTextInputNotificationAction {
            object["textInput"] = ["buttonTitle": input.textInputButtonTitle, "placeholder": input.textInputPlaceholder]
        }
        if let icon = action.icon {
            object["icon"] = icon.systemImageName.map { ["systemImageName": $0] } ?? icon.templateImageName.map { ["templateImageName": $0] }
        }
        return object
    }

    /// The categories JSON objects describe; an object without an identifier is skipped.
    static func categories(from objects: [[String: Any]]) -> Set<UNNotificationCategory> {
        Set(objects.compactMap { object -> UNNotificationCategory? in
            guard let identifier = object["identifier"] as? String else { return nil }
            let options = names(object["options"]).reduce(into: UNNotificationCategoryOptions()) { options, name in
                if let option = categoryOptions.first(where: { $0.0 == name })?.1 { options.insert(option) }
            }
            return UNNotificationCategory(identifier: identifier, actions: ((object["actions"] as? [[String: Any]]) ?? []).compactMap(action(from:)),
                                          intentIdentifiers: names(object["intentIdentifiers"]),
                                          hiddenPreviewsBodyPlaceholder: object["hiddenPreviewsBodyPlaceholder"] as? String,
                                          categorySummaryFormat: object["categorySummaryFormat"] as? String, options: options)
        })
    }

    static func action(from object: [String: Any]) -> UNNotificationAction? {
        guard let identifier = object["identifier"] as? String, let title = object["title"] as? String else { return nil }
        let options = names(object["options"]).reduce(into: UNNotificationActionOptions()) { options, name in
            if let option = actionOptions.first(where: { $0.0 == name })?.1 { options.insert(option) }
        }
        let iconObject = object["icon"] as? [String: Any]
        let icon = (iconObject?["systemImageName"] as? String).map(UNNotificationActionIcon.init(systemImageName:))
            ?? (iconObject?["templateImageName"] as? String).map(UNNotificationActionIcon.init(templateImageName:))
        if let input = object["textInput"] as? [String: Any] {
            return UNTextInputNotificationAction(identifier: identifier, title: title, options: options, icon: icon,
                                                 textInputButtonTitle: input["buttonTitle"] as? String ?? "",
                                                 textInputPlaceholder: input["placeholder"] as? String ?? "")
        }
        return UNNotificationAction(identifier: identifier, title: title, options: options, icon: icon)
    }

    private static func names(_ value: Any?) -> [String] { (value as? [Any])?.compactMap { $0 as? String } ?? [] }
}
