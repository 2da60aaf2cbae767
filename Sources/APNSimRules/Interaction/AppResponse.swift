/// What an app does with a user's response to one of its notifications, by the rules of the vendor SDK whose keys the
/// payload carries: the URL it opens and the event it reports (docs/interactions.md lists each vendor's keys and where
/// each rule comes from). The first vendor whose keys the payload has decides; a payload of none opens its plain
/// `url` key, if it has one, and reports nothing.
public struct AppResponse: Sendable, Hashable {
    /// The URL the app opens, and the payload key that named it.
    public var opened: String?
    public var openedBy: String?
    public var event: VendorEvent?

    public init(opened: String? = nil, openedBy: String? = nil, event: VendorEvent? = nil) {
        self.opened = opened
        self.openedBy = openedBy
        self.event = event
    }

    /// What the app does when the user answers a notification whose payload's top-level keys (`aps` aside) are
    /// `userInfo` with `action` (``InteractionRecord/defaultAction``, ``InteractionRecord/dismissAction`` or a button's
    /// identifier) and `text` (a text-input action's).
    /// `urlKeys`: the keys the app itself opens on a tap when no vendor's keys decide (the world file's
    /// `responses.urlKeys`), `url` by default.
    public static func of(userInfo: [String: JSONValue], action: String, text: String?, urlKeys: [String]? = nil) -> AppResponse {
        // FCM last: other vendors' pushes sent through Firebase carry its keys too.
        for vendor in [braze, salesforce, iterable, oneSignal, cleverTap, airship, klaviyo, customerIO, marigold, firebase] {
            if let response = vendor(userInfo, action, text) { return response }
        }
        // No vendor's keys: the app's own key, on a tap (`url` is the one many apps and Iterable's legacy payloads use).
        guard action == InteractionRecord.defaultAction else { return AppResponse() }
        for key in urlKeys ?? ["url"] {
            if let url = userInfo[key]?.string { return AppResponse(opened: url, openedBy: key) }
        }
        return AppResponse()
    }

    /// A vendor SDK's answer: it reports `event`, and on a tap opens `url` (named by the payload's `key`) when there is one.
    static func reporting(_ event: VendorEvent, action: String, tapOpens url: String?, key: String) -> AppResponse {
        guard action == InteractionRecord.defaultAction, let url else { return AppResponse(event: event) }
        return AppResponse(opened: url, openedBy: key, event: event)
    }
}
