/// A receipt as the gateway keeps it. What the gateway acts on is read: the push it answers, the outcome, the detail
/// and the badge. What it only records, the content, the extension's run and the presentation, stays the JSON object
/// the device wrote, and goes to the record as it came: the gateway neither decodes nor encodes it on the way.
/// Checked here: each is a JSON object (or null). Not checked here: that it reads as its type; a record whose text
/// does not says so when it is read (``EncodedJSON``, docs/records.md).
public struct ReceivedReceipt: Sendable, Hashable {
    public var id: String
    public var outcome: DeliveryOutcome
    public var detail: String?
    public var badge: AppBadge?
    public var content: EncodedJSON<NotificationContent>?
    public var extensionRun: EncodedJSON<ExtensionRun>?
    public var presentation: EncodedJSON<Presentation>?
    /// The Live Activity a `liveactivity` push went to, read whole: the gateway keeps each device's activities
    /// (`GET /v1/activities`).
    public var activity: LiveActivity?
    /// What a `liveactivity` push did to its activity, recorded as the device wrote it.
    public var activityChange: EncodedJSON<ActivityChange>?
    /// The app's Live Activity budget after the push, read whole: `GET /v1/devices` shows what is left of it.
    public var activityBudget: ActivityBudget.Report?
    /// Where the activity stands after a carried push, in place of ``activity`` (the device link's carried receipt).
    public var activityProgress: LiveActivity.Progress?
    /// What a `widgets` or `controls` push reloaded, recorded as the device wrote it.
    public var widgetReload: EncodedJSON<WidgetReload>?

    public init(id: String, outcome: DeliveryOutcome, detail: String? = nil, badge: AppBadge? = nil,
                content: EncodedJSON<NotificationContent>? = nil, extensionRun: EncodedJSON<ExtensionRun>? = nil,
                presentation: EncodedJSON<Presentation>? = nil, activity: LiveActivity? = nil,
                activityChange: EncodedJSON<ActivityChange>? = nil, activityBudget: ActivityBudget.Report? = nil,
                activityProgress: LiveActivity.Progress? = nil, widgetReload: EncodedJSON<WidgetReload>? = nil) {
        self.widgetReload = widgetReload
        self.activityBudget = activityBudget
        self.activityProgress = activityProgress
        self.activity = activity
        self.activityChange = activityChange
        self.id = id
        self.outcome = outcome
        self.detail = detail
        self.badge = badge
        self.content = content
        self.extensionRun = extensionRun
        self.presentation = presentation
    }
}
