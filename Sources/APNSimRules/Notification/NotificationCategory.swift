/// A type of notification an app registers (`UNNotificationCategory`): the buttons iOS shows with a notification
/// whose `aps.category`, or the `categoryIdentifier` its service extension set, names it.
///
/// Apple, "UNNotificationCategory", https://developer.apple.com/documentation/usernotifications/unnotificationcategory,
/// and "Declaring your actionable notification types",
/// https://developer.apple.com/documentation/usernotifications/declaring-your-actionable-notification-types
///
/// An app registers its categories with `setNotificationCategories(_:)`, which replaces the ones it registered before;
/// its service extension shares them (it reads and sets the app's). A world file gives an app's `categories` as it
/// registers them at launch.
public struct NotificationCategory: Sendable, Hashable, Codable {
    public var identifier: String
    /// The buttons, in order. iOS shows up to ten where there is room, and only the first two on a banner.
    public var actions: [Action]
    /// `UNNotificationCategoryOptions`: `customDismissAction`, `allowInCarPlay`, `hiddenPreviewsShowTitle`,
    /// `hiddenPreviewsShowSubtitle`, `allowAnnouncement`.
    public var options: [String]
    public var intentIdentifiers: [String]
    public var hiddenPreviewsBodyPlaceholder: String?
    public var categorySummaryFormat: String?

    /// One button (`UNNotificationAction`, or `UNTextInputNotificationAction` with ``textInput``).
    public struct Action: Sendable, Hashable, Codable {
        public var identifier: String
        public var title: String
        /// `UNNotificationActionOptions`: `authenticationRequired`, `destructive`, `foreground`.
        public var options: [String]
        /// A text input action's button title and placeholder; `nil` for a plain button.
        public var textInput: TextInput?
        /// `UNNotificationActionIcon`: an SF Symbol (`systemImageName`) or an image of the app (`templateImageName`).
        public var icon: Icon?

        public struct TextInput: Sendable, Hashable, Codable {
            public var buttonTitle: String
            public var placeholder: String
            public init(buttonTitle: String, placeholder: String) {
                self.buttonTitle = buttonTitle
                self.placeholder = placeholder
            }
        }

        public struct Icon: Sendable, Hashable, Codable {
            public var systemImageName: String?
            public var templateImageName: String?
            public init(systemImageName: String? = nil, templateImageName: String? = nil) {
                self.systemImageName = systemImageName
                self.templateImageName = templateImageName
            }
        }

        public static let optionNames: Set<String> = ["authenticationRequired", "destructive", "foreground"]

        public init(identifier: String, title: String, options: [String] = [], textInput: TextInput? = nil, icon: Icon? = nil) {
            self.identifier = identifier
            self.title = title
            self.options = options
            self.textInput = textInput
            self.icon = icon
        }

        enum CodingKeys: String, CodingKey {
            case identifier, title, options, textInput, icon
        }

        /// `options` may be left out (none).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(identifier: try container.decode(String.self, forKey: .identifier),
                      title: try container.decode(String.self, forKey: .title),
                      options: try container.decodeIfPresent([String].self, forKey: .options) ?? [],
                      textInput: try container.decodeIfPresent(TextInput.self, forKey: .textInput),
                      icon: try container.decodeIfPresent(Icon.self, forKey: .icon))
        }
    }

    public static let optionNames: Set<String> = ["customDismissAction", "allowInCarPlay", "hiddenPreviewsShowTitle",
                                                  "hiddenPreviewsShowSubtitle", "allowAnnouncement"]

    public init(identifier: String, actions: [Action] = [], options: [String] = [], intentIdentifiers: [String] = [],
                hiddenPreviewsBodyPlaceholder: String? = nil, categorySummaryFormat: String? = nil) {
        self.identifier = identifier
        self.actions = actions
        self.options = options
        self.intentIdentifiers = intentIdentifiers
        self.hiddenPreviewsBodyPlaceholder = hiddenPreviewsBodyPlaceholder
        self.categorySummaryFormat = categorySummaryFormat
    }

    enum CodingKeys: String, CodingKey {
        case identifier, actions, options, intentIdentifiers, hiddenPreviewsBodyPlaceholder, categorySummaryFormat
    }

    /// Everything but `identifier` may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(identifier: try container.decode(String.self, forKey: .identifier),
                  actions: try container.decodeIfPresent([Action].self, forKey: .actions) ?? [],
                  options: try container.decodeIfPresent([String].self, forKey: .options) ?? [],
                  intentIdentifiers: try container.decodeIfPresent([String].self, forKey: .intentIdentifiers) ?? [],
                  hiddenPreviewsBodyPlaceholder: try container.decodeIfPresent(String.self, forKey: .hiddenPreviewsBodyPlaceholder),
                  categorySummaryFormat: try container.decodeIfPresent(String.self, forKey: .categorySummaryFormat))
    }

    /// The buttons a notification shows: the actions of the category in `registered` that `identifier` names, up to
    /// ten (iOS shows up to ten where there is room; a banner the first two); `nil` when it names none of them.
    public static func buttons(for identifier: String?, in registered: [NotificationCategory]) -> [Action]? {
        identifier.flatMap { name in registered.first { $0.identifier == name } }.map { Array($0.actions.prefix(10)) }
    }

    /// What is wrong with these categories as an app's, one sentence each naming the category: an empty or
    /// repeated identifier, an action without identifier or title, an option iOS does not have.
    public static func problems(_ categories: [NotificationCategory]) -> [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        for category in categories {
            let name = "category \"\(category.identifier)\""
            if category.identifier.isEmpty { problems.append("a category has an empty identifier") }
            if !seen.insert(category.identifier).inserted { problems.append("\(name) is registered twice") }
            for option in category.options where !optionNames.contains(option) {
                problems.append("\(name) has option \(option), which is not one of \(optionNames.sorted().joined(separator: ", "))")
            }
            for action in category.actions {
                if action.identifier.isEmpty || action.title.isEmpty {
                    problems.append("\(name) has an action without an identifier or a title")
                }
                for option in action.options where !Action.optionNames.contains(option) {
                    problems.append("\(name)'s action \"\(action.identifier)\" has option \(option), which is not one of "
                                    + Action.optionNames.sorted().joined(separator: ", "))
                }
            }
        }
        return problems
    }
}
