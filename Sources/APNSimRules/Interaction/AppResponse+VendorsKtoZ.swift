extension AppResponse {
    /// Klaviyo: a push's `body` object carries `_k`. A tap opens the top-level `url` and tracks `$opened_push`; a button
    /// is the `body.action_buttons` entry with its `id`: it opens its `url` when its `action` is `deep_link`, and
    /// `$opened_push` carries `Button ID`, `Button Label`, `Button Action` and `Button Link`. A dismiss tracks nothing.
    /// klaviyo/klaviyo-swift-sdk, `Sources/KlaviyoSwift/Klaviyo.swift` (`handle(notificationResponse:)`,
    /// `handleActionButtonTap`) and `Utilities/UNNotificationResponse+Klaviyo.swift`; `Models/Event.swift` names the
    /// metric `$opened_push`.
    static func klaviyo(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard case .object(let body)? = userInfo["body"], let tracking = body["_k"] else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids = ["_k": tracking.string ?? tracking.jsonText]
        guard action != InteractionRecord.defaultAction else {
            return reporting(VendorEvent(vendor: "Klaviyo", name: "$opened_push", ids: ids), action: action,
                             tapOpens: userInfo["url"]?.string, key: "url")
        }
        let button = body["action_buttons"]?.array?.first { $0["id"]?.string == action }
        ids["Button ID"] = action
        if let label = button?["label"]?.string { ids["Button Label"] = label }
        let kind = button?["action"]?.string
        if let kind { ids["Button Action"] = kind == "deep_link" ? "Deep Link" : kind == "open_app" ? "Open App" : kind }
        guard kind == "deep_link", let url = button?["url"]?.string else {
            return AppResponse(event: VendorEvent(vendor: "Klaviyo", name: "$opened_push", ids: ids))
        }
        ids["Button Link"] = url
        return AppResponse(opened: url, openedBy: "body.action_buttons[\(action)].url", event: VendorEvent(vendor: "Klaviyo", name: "$opened_push", ids: ids))
    }

    /// Marigold (Sailthru Mobile): a push carries its notification ID `_nid` (and its media under `_st`); a tap opens
    /// `_u`, and the SDK starts a session attributed to the notification (`notification_id`, and `message_id` from
    /// `mid`). The SDK is closed source: these keys are the strings of sailthru/sailthru-mobile-ios-sdk's
    /// `Marigold.framework` binary (`_nid`, `_u`, `mid`, `SessionEvent.notification_id`), and apnsim's reading of them.
    static func marigold(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard userInfo["_nid"] != nil || userInfo["_st"]?.members != nil else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var ids: [String: String] = [:]
        if let id = userInfo["_nid"]?.string { ids["notification_id"] = id }
        if let message = userInfo["mid"]?.string { ids["message_id"] = message }
        return reporting(VendorEvent(vendor: "Marigold", name: "session", ids: ids), action: action, tapOpens: userInfo["_u"]?.string, key: "_u")
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
}
