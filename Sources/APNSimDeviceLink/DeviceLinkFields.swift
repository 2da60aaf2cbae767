import APNSimRules

/// The members of one frame, read one field at a time. A key given twice counts by its last value, as in
/// ``JSONObjectSyntax/object(_:)``; keys the message does not have are ignored, as `Codable` ignores them.
struct DeviceLinkFields {
    let bytes: UnsafeRawBufferPointer
    let members: [JSONObjectSyntax.Member]

    func slice(_ key: String) -> UnsafeRawBufferPointer? {
        members.last { $0.key == key }.map { UnsafeRawBufferPointer(rebasing: bytes[$0.value]) }
    }

    /// The value's text as written (`"ack"` with its quotes), to tell a few known values apart.
    func text(_ key: String) -> String? {
        slice(key).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value's text for an error message: its first 60 characters.
    func shown(_ key: String) -> String {
        guard let text = text(key) else { return "" }
        return text.count > 60 ? text.prefix(60) + "…" : text
    }

    func value(_ key: String) -> JSONValue? {
        slice(key).flatMap(JSONObjectSyntax.value)
    }

    func fail(_ message: String, _ key: String, _ why: String) -> DeviceLinkFraming.FramingError {
        DeviceLinkFraming.FramingError(description: "a \(message) message's \(key) is \(why)")
    }

    func string(_ key: String, of message: String) throws(DeviceLinkFraming.FramingError) -> String? {
        // A string without escapes is its bytes between the quotes (``JSONObjectSyntax/members(_:)`` has checked it):
        // taken as they are, not read again as a JSON value (IDs and tokens, several in each element of a carry).
        if let slice = slice(key), slice.count >= 2, slice.first == UInt8(ascii: "\""), !slice.contains(UInt8(ascii: "\\")) {
            return String(decoding: UnsafeRawBufferPointer(rebasing: slice[(slice.startIndex + 1)..<(slice.endIndex - 1)]), as: UTF8.self)
        }
        switch value(key) {
        case nil, .null?: return nil
        case .string(let string)?: return string
        default: throw fail(message, key, "\(shown(key)), not a string")
        }
    }

    func required(_ key: String, of message: String) throws(DeviceLinkFraming.FramingError) -> String {
        guard let string = try string(key, of: message) else { throw fail(message, key, "missing") }
        return string
    }

    /// An object's text as written, or `nil` for an absent or null member.
    func object(_ key: String, of message: String) throws(DeviceLinkFraming.FramingError) -> String? {
        guard let slice = slice(key) else { return nil }
        switch slice.first {
        case UInt8(ascii: "{"): return String(decoding: slice, as: UTF8.self)
        case UInt8(ascii: "n"): return nil  // null: the members' check has read it as a literal
        default: throw fail(message, key, "\(shown(key)), not an object")
        }
    }
}

extension DeviceLinkFields {
    /// A `push`, the message a device gets for every push, read by hand as `Codable` reads it.
    func push() throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Delivery {
        try own(with: try shared(of: "push"), of: "push")
    }

    /// The fields a push shares with the others of its broadcast: all but its ID, token and activity.
    func shared(of message: String) throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Carry.Common {
        let typeName = try required("pushType", of: message)
        guard let pushType = PushType(headerValue: typeName) else { throw fail(message, "pushType", "\(shown("pushType")), not a push type") }
        guard let priority = value("priority")?.integer else { throw fail(message, "priority", "\(shown("priority")), not a whole number") }
        return .init(apnsID: try required("apnsID", of: message), bundleID: try required("bundleID", of: message), pushType: pushType,
                     priority: priority, collapseID: try string("collapseID", of: message), payload: try required("payload", of: message),
                     channel: try string("channel", of: message))
    }

    /// A push's own fields (its ID, token and activity) with the ones it shares.
    func own(with shared: DeviceLinkMessage.Carry.Common, of message: String) throws(DeviceLinkFraming.FramingError) -> DeviceLinkMessage.Delivery {
        let tokenText = try required("token", of: message)
        guard let token = DeviceToken(tokenText) else { throw fail(message, "token", "\(shown("token")), not a device token") }
        return shared.delivery(id: try required("id", of: message), token: token, activity: try string("activity", of: message))
    }
}
