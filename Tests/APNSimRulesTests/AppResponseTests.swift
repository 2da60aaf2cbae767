import APNSimRules
import Foundation
import Testing

/// What an app does with a response, by its vendor SDK's keys, from plain payloads.
@Suite("App responses")
struct AppResponseTests {
    static func userInfo(_ json: String) throws -> [String: JSONValue] {
        try PushPayload(json: Array(json.utf8)).content.userInfo
    }

    static let tap = InteractionRecord.defaultAction

    @Test("Braze: a tap opens ab_uri and reports pushClick with the campaign; a dismiss reports nothing")
    func braze() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Sale"},"ab":{"c":"Y2FtcGFpZ24"},"ab_uri":"shop://sale/42"}"#)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "shop://sale/42" && tapped.openedBy == "ab_uri")
        #expect(tapped.event == VendorEvent(vendor: "Braze", name: "pushClick", ids: ["campaignId": "Y2FtcGFpZ24"]))
        #expect(AppResponse.of(userInfo: info, action: InteractionRecord.dismissAction, text: nil) == AppResponse())
    }

    @Test("Salesforce: a tap opens the OpenDirect URL and reports the open with the message's IDs")
    func salesforce() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Hi"},"_sid":"SFMC","_m":"MTAxOjExNDox","_r":"r-1","_od":"https://example.com/od"}"#)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "https://example.com/od" && tapped.openedBy == "_od")
        #expect(tapped.event?.ids == ["messageId": "MTAxOjExNDox", "requestId": "r-1"])
    }

    @Test("Iterable: a button runs its own openUrl action; the open is tracked with the button and the typed text")
    func iterable() throws {
        let info = try Self.userInfo("""
            {"aps":{"alert":"Order"},"itbl":{"campaignId":1234,"templateId":55,"messageId":"m-9",
             "defaultAction":{"type":"openUrl","data":"app://order"},
             "actionButtons":[{"identifier":"track","buttonType":"default","title":"Track","action":{"type":"openUrl","data":"app://track/9"}},
                              {"identifier":"later","buttonType":"default","title":"Later","action":{"type":"snooze","data":"1h"}}]}}
            """)
        let button = AppResponse.of(userInfo: info, action: "track", text: nil)
        #expect(button.opened == "app://track/9")
        #expect(button.event?.name == "trackPushOpen")
        #expect(button.event?.ids == ["actionIdentifier": "track", "campaignId": "1234", "templateId": "55", "messageId": "m-9"])
        #expect(AppResponse.of(userInfo: info, action: Self.tap, text: nil).opened == "app://order")
        let custom = AppResponse.of(userInfo: info, action: "later", text: "soon")
        #expect(custom.opened == nil, "a custom action opens nothing")
        #expect(custom.event?.ids["userText"] == "soon")
        #expect(AppResponse.of(userInfo: info, action: InteractionRecord.dismissAction, text: nil).event == nil)
    }

    @Test("No vendor's keys: a tap opens the plain url key, and a button opens nothing")
    func plain() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Hi"},"url":"app://inbox"}"#)
        #expect(AppResponse.of(userInfo: info, action: Self.tap, text: nil) == AppResponse(opened: "app://inbox", openedBy: "url"))
        #expect(AppResponse.of(userInfo: info, action: "reply", text: "ok") == AppResponse())
    }

    @Test("OneSignal: a tap opens the launch URL in custom or os_data and reports the open with the notification's ID")
    func oneSignal() throws {
        let original = try Self.userInfo(#"{"aps":{"alert":"Hi"},"custom":{"i":"8d1c-4a","u":"https://example.com/deal","a":{"k":1}}}"#)
        let tapped = AppResponse.of(userInfo: original, action: Self.tap, text: nil)
        #expect(tapped.opened == "https://example.com/deal" && tapped.openedBy == "custom.u")
        #expect(tapped.event == VendorEvent(vendor: "OneSignal", name: "notificationOpened", ids: ["notificationId": "8d1c-4a"]))
        let newer = try Self.userInfo(#"{"aps":{"alert":"Hi"},"os_data":{"i":"77","ti":"t-1","u":"app://deal"}}"#)
        #expect(AppResponse.of(userInfo: newer, action: Self.tap, text: nil).openedBy == "os_data.u")
        #expect(AppResponse.of(userInfo: newer, action: "id1", text: nil).event?.ids == ["notificationId": "77", "templateId": "t-1", "actionSelected": "id1"])
    }

    @Test("CleverTap: a tap opens wzrk_dl and records Notification Clicked with the campaign's wzrk_id")
    func cleverTap() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Hi"},"W$":"1","wzrk_id":"1700000000_20261126","wzrk_pivot":"wzrk_default","wzrk_dl":"app://promo"}"#)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "app://promo" && tapped.openedBy == "wzrk_dl")
        #expect(tapped.event == VendorEvent(vendor: "CleverTap", name: "Notification Clicked",
                                            ids: ["wzrk_id": "1700000000_20261126", "wzrk_pivot": "wzrk_default"]))
    }
    @Test("Airship: a tap runs ^d and reports app_foreground with the send ID; a button runs its interactive actions with its user_input")
    func airship() throws {
        let info = try Self.userInfo("""
            {"aps":{"alert":"Sale"},"_":"send-7","^d":"shop://sale",
             "com.urbanairship.interactive_actions":{"open":{"^u":"https://example.com/sale"},"reply":{"add_tags_action":"replied"}}}
            """)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "shop://sale" && tapped.openedBy == "^d")
        #expect(tapped.event == VendorEvent(vendor: "Airship", name: "app_foreground", ids: ["push_id": "send-7"]))
        let button = AppResponse.of(userInfo: info, action: "open", text: nil)
        #expect(button.opened == "https://example.com/sale" && button.openedBy == "com.urbanairship.interactive_actions.open.^u")
        #expect(button.event?.name == "interactive_notification_action" && button.event?.ids == ["button_id": "open", "send_id": "send-7"])
        let reply = AppResponse.of(userInfo: info, action: "reply", text: String(repeating: "x", count: 300))
        #expect(reply.opened == nil && reply.event?.ids["user_input"]?.count == 255)
        let noSendID = AppResponse.of(userInfo: try Self.userInfo(#"{"aps":{"alert":"x"},"deep_link_action":"app://a"}"#), action: Self.tap, text: nil)
        #expect(noSendID.opened == "app://a" && noSendID.event?.ids == ["push_id": "MISSING_SEND_ID"])
    }

    @Test("Klaviyo: a tap opens url and tracks $opened_push; a deep_link button opens its own url with its label; open_app opens nothing")
    func klaviyo() throws {
        let info = try Self.userInfo("""
            {"aps":{"alert":"New arrivals"},"url":"shop://new","body":{"_k":"k-123","action_buttons":[
              {"id":"com.klaviyo.action.shop","action":"deep_link","label":"Shop Now","url":"shop://sale"},
              {"id":"com.klaviyo.action.open","action":"open_app","label":"Open"}]}}
            """)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "shop://new" && tapped.event == VendorEvent(vendor: "Klaviyo", name: "$opened_push", ids: ["_k": "k-123"]))
        let shop = AppResponse.of(userInfo: info, action: "com.klaviyo.action.shop", text: nil)
        #expect(shop.opened == "shop://sale" && shop.openedBy == "body.action_buttons[com.klaviyo.action.shop].url")
        #expect(shop.event?.ids == ["_k": "k-123", "Button ID": "com.klaviyo.action.shop", "Button Label": "Shop Now",
                                    "Button Action": "Deep Link", "Button Link": "shop://sale"])
        let open = AppResponse.of(userInfo: info, action: "com.klaviyo.action.open", text: nil)
        #expect(open.opened == nil && open.event?.ids["Button Action"] == "Open App")
        #expect(AppResponse.of(userInfo: info, action: InteractionRecord.dismissAction, text: nil) == AppResponse())
    }

    @Test("Customer.io: only a tap opens CIO.push.link and tracks opened with the delivery's ID and token")
    func customerIO() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Hi"},"CIO-Delivery-ID":"d-1","CIO-Delivery-Token":"t-1","CIO":{"push":{"link":"app://cio"}}}"#)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "app://cio" && tapped.openedBy == "CIO.push.link")
        #expect(tapped.event == VendorEvent(vendor: "Customer.io", name: "opened", ids: ["deliveryId": "d-1", "deviceToken": "t-1"]))
        #expect(AppResponse.of(userInfo: info, action: "reply", text: "x") == AppResponse())
    }

    @Test("FCM: a tap opens gcm.app_link; notification_open is logged only with analytics on; other vendors' keys win over FCM's")
    func firebase() throws {
        let info = try Self.userInfo("""
            {"aps":{"alert":"News"},"gcm.message_id":"0:1522","gcm.app_link":"app://news/1","google.c.a.e":"1",
             "google.c.a.c_id":"5753","google.c.a.c_l":"Hello","from":"/topics/news"}
            """)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "app://news/1" && tapped.openedBy == "gcm.app_link")
        #expect(tapped.event == VendorEvent(vendor: "Firebase", name: "notification_open",
                                            ids: ["gcm.message_id": "0:1522", "message_id": "5753", "message_name": "Hello", "topic": "/topics/news"]))
        let quiet = AppResponse.of(userInfo: try Self.userInfo(#"{"aps":{"alert":"x"},"gcm.message_id":"0:1"}"#), action: Self.tap, text: nil)
        #expect(quiet.event == nil, "analytics off: nothing logged")
        let viaFirebase = try Self.userInfo(#"{"aps":{"alert":"x"},"gcm.message_id":"0:2","CIO-Delivery-ID":"d-2","CIO":{"push":{"link":"app://c"}}}"#)
        #expect(AppResponse.of(userInfo: viaFirebase, action: Self.tap, text: nil).event?.vendor == "Customer.io")
    }

    @Test("Marigold: a tap opens _u and starts a session with the notification's ID")
    func marigold() throws {
        let info = try Self.userInfo(#"{"aps":{"alert":"Hi"},"_nid":"n-5","mid":"m-5","_u":"https://example.com/m","_st":{"image_url":"https://example.com/i.jpg"}}"#)
        let tapped = AppResponse.of(userInfo: info, action: Self.tap, text: nil)
        #expect(tapped.opened == "https://example.com/m" && tapped.openedBy == "_u")
        #expect(tapped.event == VendorEvent(vendor: "Marigold", name: "session", ids: ["notification_id": "n-5", "message_id": "m-5"]))
    }
}
