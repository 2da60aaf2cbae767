extension AppResponse {
    /// Airship: a push carries its send ID under `_` and its actions as top-level keys. A tap runs them: the deep link
    /// action (`^d`, `deep_link_action`) or the open-external-URL action (`^u`, `open_external_url_action`) opens its
    /// URL, and the app's foreground event (`app_foreground`) carries the send ID as `push_id` (`MISSING_SEND_ID` when the
    /// payload had none). A button runs the actions `com.urbanairship.interactive_actions` names under its identifier
    /// and reports `interactive_notification_action` with `button_id`, `send_id` and the typed `user_input`.
    /// urbanairship/ios-library, `Airship/AirshipCore/Source/InteractiveNotificationEvent.swift` and the action names its
    /// registry lists (`DeepLinkAction`, `OpenExternalURLAction`); `UAAnalytics.m` (`conversionSendID` from `_`).
    static func airship(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        let actionKeys = ["^d", "deep_link_action", "^u", "open_external_url_action"]
        guard userInfo["_"] != nil || userInfo["com.urbanairship.metadata"] != nil || userInfo["com.urbanairship.interactive_actions"] != nil
                || actionKeys.contains(where: { userInfo[$0] != nil }) else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        let sendID = userInfo["_"]?.string ?? "MISSING_SEND_ID"
        let actions: [String: JSONValue]
        let event: VendorEvent
        let prefix: String
        if action == InteractionRecord.defaultAction {
            (actions, prefix) = (userInfo, "")
            event = VendorEvent(vendor: "Airship", name: "app_foreground", ids: ["push_id": sendID])
        } else {
            actions = userInfo["com.urbanairship.interactive_actions"]?[action]?.members ?? [:]
            prefix = "com.urbanairship.interactive_actions.\(action)."
            var ids = ["button_id": action, "send_id": sendID]
            if let text { ids["user_input"] = String(text.prefix(255)) }  // Airship truncates it to 255 characters
            event = VendorEvent(vendor: "Airship", name: "interactive_notification_action", ids: ids)
        }
        for key in actionKeys {
            if let url = actions[key]?.string { return AppResponse(opened: url, openedBy: prefix + key, event: event) }
        }
        return AppResponse(event: event)
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

    /// Customer.io: a push carries `CIO-Delivery-ID` and `CIO-Delivery-Token`; a tap (and only a tap) opens its
    /// `CIO.push.link` and tracks the `opened` metric with the delivery's ID and token. customerio/customerio-ios,
    /// `Sources/MessagingPush/PushHandling/ManualPushHandling+UserNotifications.swift` (`didClickOnPush`),
    /// `PushHandling/PushClickHandler.swift` and `Type/PushNotification.swift` (`cioDelivery`, `cioDeepLink`).
    static func customerIO(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard let delivery = userInfo["CIO-Delivery-ID"]?.string else { return nil }
        guard action == InteractionRecord.defaultAction else { return AppResponse() }
        var ids = ["deliveryId": delivery]
        if let token = userInfo["CIO-Delivery-Token"]?.string { ids["deviceToken"] = token }
        let event = VendorEvent(vendor: "Customer.io", name: "opened", ids: ids)
        return reporting(event, action: action, tapOpens: userInfo["CIO"]?["push"]?["link"]?.string, key: "CIO.push.link")
    }

    /// Firebase Cloud Messaging: a push carries `gcm.message_id`. A tap opens `gcm.app_link` (the SDK hands it to the
    /// app's `application(_:open:options:)`); when the message has analytics on (`google.c.a.e` is `"1"`), the SDK logs
    /// `notification_open` with the campaign's ID (`google.c.a.c_id`), name (`google.c.a.c_l`), label (`google.c.a.m_l`)
    /// and topic (`from`). firebase/firebase-ios-sdk, `FirebaseMessaging/Sources/FIRMessagingConstants.m`
    /// (`kFIRMessagingMessageLinkKey`) and `FIRMessagingAnalytics.m` (`logOpenNotification:`, `paramsForEvent:`). apnsim
    /// logs it for a button too, and nothing for a dismiss.
    static func firebase(_ userInfo: [String: JSONValue], _ action: String, _ text: String?) -> AppResponse? {
        guard let message = userInfo["gcm.message_id"]?.string else { return nil }
        guard action != InteractionRecord.dismissAction else { return AppResponse() }
        var event: VendorEvent?
        if userInfo["google.c.a.e"]?.string == "1" {
            var ids = ["gcm.message_id": message]
            for (key, name) in [("google.c.a.c_id", "message_id"), ("google.c.a.c_l", "message_name"), ("google.c.a.m_l", "label"), ("from", "topic")] {
                if let value = userInfo[key]?.string { ids[name] = value }
            }
            event = VendorEvent(vendor: "Firebase", name: "notification_open", ids: ids)
        }
        guard action == InteractionRecord.defaultAction, let url = userInfo["gcm.app_link"]?.string else { return AppResponse(event: event) }
        return AppResponse(opened: url, openedBy: "gcm.app_link", event: event)
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
}
