import APNSimRules

/// How an `auto` extension picks a vendor: by the first of these keys the payload has. A sandbox app on `auto`
/// shows what each vendor's SDK would make of its payload.
enum AutoPick {
    static let rules: [(kind: ExtensionKind, key: String, matches: @Sendable ([String: JSONValue]) -> Bool)] = [
        (.scripted, "apnsim.extension", { $0["apnsim"]?["extension"] != nil }),
        (.braze, "ab", { $0["ab"] != nil }),
        (.salesforce, "_mediaUrl", { $0["_mediaUrl"] != nil }),
        (.sailthru, "_st", { $0["_st"] != nil }),
        (.onesignal, "att", { $0["att"] != nil || $0["os_data"] != nil }),
        (.onesignal, "buttons", { $0["buttons"] != nil && $0["custom"]?["i"] != nil }),
        (.firebase, "fcm_options", { $0["fcm_options"] != nil }),
        (.airship, AirshipExtension.key, { $0[AirshipExtension.key] != nil }),
        (.iterable, "itbl", { $0["itbl"] != nil }),
        (.clevertap, "ct_mediaUrl", { $0["ct_mediaUrl"] != nil }),
    ]

    /// The kind the payload's keys point to and the key that decided (recorded as `pickedBy`); `auto` and `nil`
    /// when none does.
    static func pick(_ userInfo: [String: JSONValue]) -> (ExtensionKind, String?) {
        guard let rule = rules.first(where: { $0.matches(userInfo) }) else { return (.auto, nil) }
        return (rule.kind, rule.key)
    }

    /// What `auto` runs when it picks nothing: the push is shown as sent.
    struct Unpicked: BuiltInExtension {
        func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
            .original("no vendor's media keys (\(AutoPick.rules.map(\.key).joined(separator: ", "))), so the push is shown as sent")
        }
    }
}
