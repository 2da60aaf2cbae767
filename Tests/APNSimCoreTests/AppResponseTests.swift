import APNSimCore
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
}

