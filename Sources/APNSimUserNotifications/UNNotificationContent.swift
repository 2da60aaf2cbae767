/// A notification's content, as the extension receives it: read-only. `mutableCopy()` gives an
/// `UNMutableNotificationContent` to change, as NSObject's does on Apple's systems.
///
/// Apple, "UNNotificationContent", https://developer.apple.com/documentation/usernotifications/unnotificationcontent
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    struct Values {
        var title: String = ""
        var subtitle: String = ""
        var body: String = ""
        var badge: NSNumber? = nil
        var sound: UNNotificationSound? = nil
        var launchImageName: String = ""
        var userInfo: [AnyHashable: Any] = [:]
        var attachments: [UNNotificationAttachment] = []
        var threadIdentifier: String = ""
        var categoryIdentifier: String = ""
        var summaryArgument: String = ""
        var summaryArgumentCount: Int = 0
        var targetContentIdentifier: String? = nil
        var interruptionLevel: UNNotificationInterruptionLevel = .active
        var relevanceScore: Double = 0
        var filterCriteria: String? = nil
    }

    var values: Values

    public override init() { values = Values() }

    init(values: Values) { self.values = values }

    /// The alert title.
    open var title: String { values.title }

    /// The alert subtitle.
    open var subtitle: String { values.subtitle }

    /// The alert body.
    open var body: String { values.body }

    /// The number on the app icon; `nil` leaves it as it is.
    open var badge: NSNumber? { values.badge }

    /// The sound; `nil` is silent.
    open var sound: UNNotificationSound? { values.sound }

    /// The launch image (`aps.alert.launch-image`).
    open var launchImageName: String { values.launchImageName }

    /// Every top-level key of the payload but `aps`, as native Swift values (`String`, `Int`, `Double`, `Bool`, `[Any]`, `[String: Any]`).
    open var userInfo: [AnyHashable: Any] { values.userInfo }

    /// The files shown with the notification.
    open var attachments: [UNNotificationAttachment] { values.attachments }

    /// Groups notifications (`aps.thread-id`).
    open var threadIdentifier: String { values.threadIdentifier }

    /// The actions category (`aps.category`).
    open var categoryIdentifier: String { values.categoryIdentifier }

    /// The summary text of the group (`aps.alert.summary-arg`).
    open var summaryArgument: String { values.summaryArgument }

    /// How many items the summary counts (`aps.alert.summary-arg-count`).
    open var summaryArgumentCount: Int { values.summaryArgumentCount }

    /// The window to show (`aps.target-content-id`).
    open var targetContentIdentifier: String? { values.targetContentIdentifier }

    /// How it interrupts (`aps.interruption-level`).
    open var interruptionLevel: UNNotificationInterruptionLevel { values.interruptionLevel }

    /// How it ranks in the summary (`aps.relevance-score`).
    open var relevanceScore: Double { values.relevanceScore }

    /// The Focus filter it matches (`aps.filter-criteria`).
    open var filterCriteria: String? { values.filterCriteria }

    open func copy(with zone: NSZone? = nil) -> Any { UNNotificationContent(values: values) }

    open func mutableCopy(with zone: NSZone? = nil) -> Any { UNMutableNotificationContent(values: values) }
}

/// Content an extension changes before handing it to the content handler.
///
/// Apple, "UNMutableNotificationContent",
/// https://developer.apple.com/documentation/usernotifications/unmutablenotificationcontent
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    open override var title: String {
        get { values.title }
        set { values.title = newValue }
    }

    open override var subtitle: String {
        get { values.subtitle }
        set { values.subtitle = newValue }
    }

    open override var body: String {
        get { values.body }
        set { values.body = newValue }
    }

    open override var badge: NSNumber? {
        get { values.badge }
        set { values.badge = newValue }
    }

    open override var sound: UNNotificationSound? {
        get { values.sound }
        set { values.sound = newValue }
    }

    open override var launchImageName: String {
        get { values.launchImageName }
        set { values.launchImageName = newValue }
    }

    open override var userInfo: [AnyHashable: Any] {
        get { values.userInfo }
        set { values.userInfo = newValue }
    }

    open override var attachments: [UNNotificationAttachment] {
        get { values.attachments }
        set { values.attachments = newValue }
    }

    open override var threadIdentifier: String {
        get { values.threadIdentifier }
        set { values.threadIdentifier = newValue }
    }

    open override var categoryIdentifier: String {
        get { values.categoryIdentifier }
        set { values.categoryIdentifier = newValue }
    }

    open override var summaryArgument: String {
        get { values.summaryArgument }
        set { values.summaryArgument = newValue }
    }

    open override var summaryArgumentCount: Int {
        get { values.summaryArgumentCount }
        set { values.summaryArgumentCount = newValue }
    }

    open override var targetContentIdentifier: String? {
        get { values.targetContentIdentifier }
        set { values.targetContentIdentifier = newValue }
    }

    open override var interruptionLevel: UNNotificationInterruptionLevel {
        get { values.interruptionLevel }
        set { values.interruptionLevel = newValue }
    }

    open override var relevanceScore: Double {
        get { values.relevanceScore }
        set { values.relevanceScore = newValue }
    }

    open override var filterCriteria: String? {
        get { values.filterCriteria }
        set { values.filterCriteria = newValue }
    }
}
