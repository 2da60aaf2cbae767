/// Notification content as docs/extension-protocol.md writes it, to and from the classes an extension sees.
enum WireContent {
    static func content(from json: [String: Any]) -> UNNotificationContent {
        var values = UNNotificationContent.Values()
        values.title = json["title"] as? String ?? ""
        values.subtitle = json["subtitle"] as? String ?? ""
        values.body = json["body"] as? String ?? ""
        values.badge = (json["badge"] as? NSNumber)
        values.sound = (json["sound"] as? String).map { UNNotificationSound(name: $0) }
        values.threadIdentifier = json["threadID"] as? String ?? ""
        values.categoryIdentifier = json["category"] as? String ?? ""
        values.interruptionLevel = (json["interruptionLevel"] as? String).flatMap(UNNotificationInterruptionLevel.init(apsName:)) ?? .active
        values.relevanceScore = (json["relevanceScore"] as? NSNumber)?.doubleValue ?? 0
        var userInfo: [AnyHashable: Any] = [:]
        for (key, value) in json["userInfo"] as? [String: Any] ?? [:] { userInfo[key] = native(value) }
        values.userInfo = userInfo
        return UNNotificationContent(values: values)
    }

    /// The content handed over, whole: what is empty is left out, as the device reads a missing key as removed.
    static func json(from content: UNNotificationContent) -> [String: Any] {
        var json: [String: Any] = [:]
        for (key, value) in [("title", content.title), ("subtitle", content.subtitle), ("body", content.body),
                             ("threadID", content.threadIdentifier), ("category", content.categoryIdentifier)] where !value.isEmpty {
            json[key] = value
        }
        if let badge = content.badge { json["badge"] = badge.intValue }
        if let sound = content.sound { json["sound"] = sound.name }
        if content.interruptionLevel != .active { json["interruptionLevel"] = content.interruptionLevel.apsName }
        if content.relevanceScore != 0 { json["relevanceScore"] = content.relevanceScore }
        json["userInfo"] = Dictionary(content.userInfo.map { ("\($0.key.base)", jsonValue($0.value)) }, uniquingKeysWith: { $1 })
        return json
    }

    /// A JSON value as the Swift value Apple's `userInfo` bridges it to: `Bool`, `Int`, `Double`, `String`,
    /// `[Any]`, `[String: Any]`, or `NSNull`.
    static func native(_ value: Any) -> Any {
        switch value {
        case let number as NSNumber:
            // JSONSerialization's numbers say what they were written as: `c` for true and false, `d` with a fraction.
            switch String(cString: number.objCType) {
            case "c": return number.boolValue
            case "d", "f": return Int(exactly: number.doubleValue) ?? number.doubleValue
            default: return number.intValue
            }
        case let array as [Any]: return array.map(native)
        case let object as [String: Any]: return object.mapValues(native)
        default: return value
        }
    }

    /// A value an extension put in `userInfo`, as JSON can hold it (anything else as its description).
    static func jsonValue(_ value: Any) -> Any {
        switch value {
        case let string as String: return string
        case let bool as Bool: return bool
        case let int as Int: return int
        case let double as Double: return double
        case let number as NSNumber: return number.doubleValue
        case let array as [Any]: return array.map(jsonValue)
        case let object as [AnyHashable: Any]: return Dictionary(object.map { ("\($0.key.base)", jsonValue($0.value)) }, uniquingKeysWith: { $1 })
        case is NSNull: return NSNull()
        default: return "\(value)"
        }
    }
}

extension ServiceExtensionHost {
    /// The content of a `request` message (docs/extension-protocol.md) as the extension receives it.
    public static func content(fromWire json: [String: Any]) -> UNNotificationContent { WireContent.content(from: json) }

    /// Content as a `content` message carries it, without its attachments.
    public static func wire(from content: UNNotificationContent) -> [String: Any] { WireContent.json(from: content) }
}
