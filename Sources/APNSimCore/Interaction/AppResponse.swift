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
        for vendor in [braze, salesforce, iterable, oneSignal, cleverTap] {
            if let response = vendor(userInfo, action, text) { return response }
        }
        // No vendor's keys: the app's own key, on a tap (`url` is the one many apps and Iterable's legacy payloads use).
        guard action == InteractionRecord.defaultAction else { return AppResponse() }
        for key in urlKeys ?? ["url"] {
            if let url = userInfo[key]?.string { return AppResponse(opened: url, openedBy: key) }
        }
        return AppResponse()
    }

    /// Braze: a push has an `ab` object; tapping it opens `ab_uri` and logs a push click with the campaign the `ab`
    /// object names (its `c`). Braze, "Push notifications: troubleshooting" (the SDK's log of a tapped push, `ab_uri`
    /// and `pushClick(campaignId:)`), https://www.braze.com/docs/developer_guide/push_notifications/troubleshooting/
    /// and "Deep linking", https://www.braze.com/docs/developer_guide/deep_linking/. A dismiss is not reported.
    static func braze(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard case .object(let ab)? = userInfo["ab"] else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids: [String: String] = [:]
        if let campaign = ab["c"]?.string { ids["campaignId"] = campaign }
        if action != InteractionRecord.defaultAction { ids["buttonId"] = action }
        let event = VendorEvent(vendor: "Braze", name: action == InteractionRecord.defaultAction ? "pushClick" : "pushButtonClick", ids: ids)
        return reporting(event, action: action, tapOpens: userInfo["ab_uri"]?.string, key: "ab_uri")
    }

    /// Salesforce Marketing Cloud MobilePush: a push carries `_sid: "SFMC"` and its message in `_m`; tapping it opens its
    /// OpenDirect URL, `_od`, and the SDK reports the open with the message's ID. Salesforce, MarketingCloudSDK-iOS,
    /// "OpenDirect" and `MarketingCloudSDK+OpenDirect.h`, https://salesforce-marketingcloud.github.io/MarketingCloudSDK-iOS/
    static func salesforce(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard userInfo["_sid"]?.string == "SFMC" || userInfo["_m"] != nil || userInfo["_od"] != nil else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids: [String: String] = [:]
        if let message = userInfo["_m"]?.string { ids["messageId"] = message }
        if let request = userInfo["_r"]?.string { ids["requestId"] = request }
        let event = VendorEvent(vendor: "Salesforce", name: "open", ids: ids)
        return reporting(event, action: action, tapOpens: userInfo["_od"]?.string, key: "_od")
    }

    /// Iterable: a push has an `itbl` object. A tap runs `itbl.defaultAction` (or, in older payloads, opens the
    /// top-level `url`); a button runs the `action` of the `itbl.actionButtons` entry with its identifier; an action of
    /// type `openUrl` opens its `data`. Every response but a dismiss is tracked as a push open with the campaign,
    /// template and message IDs, and `actionIdentifier` `default` or the button's. Iterable/iterable-swift-sdk,
    /// `swift-sdk/Internal/InternalIterableAppIntegration.swift` (`createIterableAction`, `createIterableDataFields`)
    /// and `swift-sdk/Core/Constants.swift` (`JsonKey.Payload`).
    static func iterable(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard case .object(let itbl)? = userInfo["itbl"] else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }  // "We don't track dismiss actions yet"
        var ids: [String: String] = ["actionIdentifier": action == InteractionRecord.defaultAction ? "default" : action]
        for key in ["campaignId", "templateId", "messageId"] {
            if let value = itbl[key] { ids[key] = value.string ?? value.integer.map(String.init) }
        }
        if let text { ids["userText"] = text }
        let event = VendorEvent(vendor: "Iterable", name: "trackPushOpen", ids: ids)
        let run: JSONValue?
        var key: String
        if action == InteractionRecord.defaultAction {
            run = itbl["defaultAction"] ?? userInfo["url"].map { .object(["type": .string("openUrl"), "data": $0]) }
            key = itbl["defaultAction"] == nil ? "url" : "itbl.defaultAction"
        } else {
            run = itbl["actionButtons"]?.array?.first { $0["identifier"]?.string == action }?["action"]
            key = "itbl.actionButtons[\(action)].action"
        }
        guard let run, run["type"]?.string == "openUrl", let url = run["data"]?.string else { return AppResponse(event: event) }
        if key == "itbl.defaultAction" { key += ".data" } else if key.hasSuffix(".action") { key += ".data" }
        return AppResponse(opened: url, openedBy: key, event: event)
    }

    /// OneSignal: its fields are under `custom` (the original format) or `os_data` (the newer one): the notification's
    /// ID `i`, its launch URL `u`, its template `ti`. A tap opens `u`; the SDK reports the open with the notification's
    /// ID and, for a button, the button's ID (`actionSelected`). OneSignal/OneSignal-iOS-SDK,
    /// `iOS_SDK/OneSignalSDK/OneSignalCore/Source/OSNotification.m` (`parseCommonOneSignalFields:`).
    static func oneSignal(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard case .object(let fields)? = userInfo["os_data"] ?? userInfo["custom"], fields["i"] != nil else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids: [String: String] = [:]
        if let id = fields["i"]?.string { ids["notificationId"] = id }
        if let template = fields["ti"]?.string { ids["templateId"] = template }
        if action != InteractionRecord.defaultAction { ids["actionSelected"] = action }
        let event = VendorEvent(vendor: "OneSignal", name: "notificationOpened", ids: ids)
        return reporting(event, action: action, tapOpens: fields["u"]?.string, key: userInfo["os_data"] != nil ? "os_data.u" : "custom.u")
    }

    /// CleverTap: its pushes carry `W$` and `wzrk_` keys; a tap opens `wzrk_dl` (`urlForNotification:` in
    /// CleverTap/clevertap-ios-sdk `CleverTap.m`) and the SDK records the event `Notification Clicked` with the
    /// campaign's `wzrk_id` and `wzrk_pivot` (`CLTAP_NOTIFICATION_CLICKED_EVENT_NAME`, `CLTAP_PROP_WZRK_ID` in
    /// `CTConstants.h`).
    static func cleverTap(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard userInfo["W$"] != nil || userInfo["wzrk_id"] != nil || userInfo["wzrk_dl"] != nil else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids: [String: String] = [:]
        for key in ["wzrk_id", "wzrk_pivot"] {
            if let value = userInfo[key]?.string { ids[key] = value }
        }
        if action != InteractionRecord.defaultAction { ids["wzrk_c2a"] = action }
        let event = VendorEvent(vendor: "CleverTap", name: "Notification Clicked", ids: ids)
        return reporting(event, action: action, tapOpens: userInfo["wzrk_dl"]?.string, key: "wzrk_dl")
    }

    /// A vendor SDK's answer: it reports `event`, and on a tap opens `url` (named by the payload's `key`) when there is one.
    private static func reporting(_ event: VendorEvent, action: String, tapOpens url: String?, key: String) -> AppResponse {
        guard action == InteractionRecord.defaultAction, let url else { return AppResponse(event: event) }
        return AppResponse(opened: url, openedBy: key, event: event)
    }
}
