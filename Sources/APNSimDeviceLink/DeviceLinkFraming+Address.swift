import APNSimRules

/// Frames on a link that many devices of one process share (docs/device-link.md, "Shared links"): a message about one
/// device names it in `deviceID`, a member added to the message's object; a message about the link itself (`link`,
/// heartbeats, `carry`, `receipts`, an `error` that ends the link) names none.
extension DeviceLinkFraming {
    /// The member that names a message's device on a shared link.
    public static let addressKey = "deviceID"

    /// `message` as frames, naming `deviceID` when it is about one device of a shared link (a message about the link
    /// names none, whatever `deviceID` says).
    public static func frame(_ message: DeviceLinkMessage.ToDevice, deviceID: String?) -> [UInt8] {
        guard let deviceID, !message.isAboutLink else { return frame(message) }
        // The message of every push is written with the device's name as its first member; others are joined.
        if case .push(let delivery) = message { return framed(written(delivery, address: deviceID)) }
        // One message about one device is one frame (only `carry`, which names no device, takes several).
        return framed(object: frame(message).dropFirst(4), naming: deviceID)
    }

    /// `message` as frames, naming `deviceID` when it is about one device of a shared link.
    public static func frame(_ message: DeviceLinkMessage.Written, deviceID: String?) -> [UInt8] {
        guard let deviceID, !message.isAboutLink else { return frame(message) }
        // The messages of every push are written with the device's name as their first member; others are joined.
        switch message {
        case .ack(let ack): return framed(written(ack, address: deviceID))
        case .receipt(let receipt): return framed(written(receipt, address: deviceID))
        default: return framed(object: frame(message).dropFirst(4), naming: deviceID)
        }
    }

    /// The JSON object `body` as one frame with `deviceID` joined as its first member: how a message written without
    /// its device (or kept so, ``DeviceLinkMessage/Receipt/Compact``) goes on a shared link.
    static func framed(object body: some Collection<UInt8>, naming deviceID: String) -> [UInt8] {
        var address = JSONWriter(capacity: deviceID.utf8.count + body.count + 16)
        address.field("deviceID", deviceID)
        var joined = address.finish()
        joined.removeLast()  // `{"deviceID":"…"` without its closing brace
        let rest = body.dropFirst()  // after the `{`
        if rest.first != UInt8(ascii: "}") { joined.append(UInt8(ascii: ",")) }
        joined.append(contentsOf: rest)
        return framed(joined)
    }

    /// The device a frame's body names (`deviceID`), `nil` when it names none; throws when the member is not a string.
    public static func deviceID(in body: ArraySlice<UInt8>) throws(FramingError) -> String? {
        let read = body.withUnsafeBytes { bytes -> Result<String?, FramingError> in
            guard let members = JSONObjectSyntax.members(bytes) else { return .success(nil) }
            do throws(FramingError) {
                return .success(try DeviceLinkFields(bytes: bytes, members: members).string(addressKey, of: "device-link"))
            } catch {
                return .failure(error)
            }
        }
        return try read.get()
    }
}

extension DeviceLinkFraming.Reader {
    /// The next whole message and the device it names on a shared link, `nil` when more bytes are needed.
    public mutating func nextAddressed() throws(DeviceLinkFraming.FramingError) -> (deviceID: String?, message: DeviceLinkMessage.ToDevice)? {
        guard let body = try nextBody() else { return nil }
        return try DeviceLinkFraming.decodeAddressed(body)
    }

    /// The next whole message as the gateway reads a device's (``DeviceLinkInbound``), and the device it names.
    public mutating func nextAddressedInbound() throws(DeviceLinkFraming.FramingError) -> (deviceID: String?, inbound: DeviceLinkInbound)? {
        guard let body = try nextBody() else { return nil }
        return try DeviceLinkInbound.addressed(frame: body)
    }
}
