import APNSimRules

extension DeviceLinkMessage {
    /// Gateway → device. The cases far larger than a push are `indirect`: inline, an install made every message its
    /// size, a push's included (docs/speed.md, "The delivery record in memory").
    public enum ToDevice: Sendable, Hashable {
        /// The device's hello (or its process's link) is accepted.
        case welcome(Welcome)
        /// The token for a registration.
        case registered(Registered)
        /// A push for one of the device's tokens.
        case push(Delivery)
        /// Pushes for several devices of the process the link's device runs in (a broadcast).
        case carry(Carry)
        /// Install an app (the control API's `POST /v1/devices/{id}/apps`).
        indirect case install(AppManifest)
        /// Remove an app.
        case uninstall(Uninstall)
        /// An app comes to the foreground (with what its willPresent returns) or leaves it.
        case foreground(Foreground)
        /// Restart (the link drops, the app extensions' processes end, the device comes back).
        case restart(Restart)
        /// The user turns a Focus on, or off (`POST /v1/devices/{id}/focus`).
        case focus(FocusChange)
        /// The user sets a Scheduled Summary, or turns it off (`POST /v1/devices/{id}/summary`).
        case summary(SummaryChange)
        /// Deliver the Scheduled Summary now, as if its time had come (`POST /v1/devices/{id}/summary/deliver`).
        case deliverSummary(DeliverSummary)
        /// An app starts a Live Activity (`Activity.request`), with the ID and push token the gateway gave it.
        case startActivity(StartActivity)
        /// An app ends one of its Live Activities (`Activity.end(_:dismissalPolicy:)`).
        case endActivity(EndActivity)
        /// The user answers a displayed notification: taps it, presses one of its buttons (with text, for a
        /// text-input action) or dismisses it (`POST /v1/devices/{id}/tap`, `…/dismiss`).
        case interact(Interact)
        /// Are you there? Answered with `heartbeatAck` carrying the same sequence number.
        case heartbeat(Heartbeat)
        case heartbeatAck(Heartbeat)
        /// A message that could not be accepted, and why; then the link closes.
        case error(LinkError)
    }

    /// Device → gateway, with its receipts in the form of the side that holds them: as the device writes them
    /// (``Written``: ``Receipt`` and ``Receipts`` values) or as the gateway reads them (``DeviceLinkInbound``: the
    /// pieces it records as the device wrote them, ``ReceivedReceipt``), so both ends switch over the same cases.
    public enum FromDevice<ReceiptBody: Sendable & Hashable, ReceiptsBody: Sendable & Hashable>: Sendable, Hashable {
        /// First on a device's own link: who the device is and which protocol version it speaks. On a shared link,
        /// each of its devices joins with one.
        case hello(Hello)
        /// First on a link its devices share: the process, whose devices then say `hello` on it, each message naming
        /// its device (docs/device-link.md, "Shared links").
        case link(Link)
        /// An installed app asks for its token.
        case register(Registration)
        /// An app was removed; its token goes inactive.
        case unregister(Unregistration)
        /// iOS would not install the app, and why.
        case installRefused(InstallRefused)
        /// The push arrived; the gateway may forget it.
        case ack(Ack)
        /// What the device did with the push.
        indirect case receipt(ReceiptBody)
        /// The receipts of carried pushes, each naming its device.
        case receipts(ReceiptsBody)
        /// Before a receipt: part of an attachment the device keeps, so the inbox shows the device's own copy.
        case attachmentCopy(AttachmentCopy)
        /// What came of an `interact`: its interaction record, or why nothing happened.
        indirect case interacted(Interacted)
        /// A Scheduled Summary was delivered, at its time or on request (then with the request's ID).
        case summarized(SummaryDelivery)
        /// An app's Live Activities after a change no receipt carries, in the order the device shows them.
        case activities(ActivityReport)
        /// Are you there? Answered with `heartbeatAck` carrying the same sequence number.
        case heartbeat(Heartbeat)
        case heartbeatAck(Heartbeat)
        /// A message that could not be accepted, and why; then the link closes.
        case error(LinkError)
    }

    /// A device's message as the device writes it.
    public typealias Written = FromDevice<Receipt, Receipts>
}

/// A device's message as the gateway reads it. The two that every push brings back, `ack` and `receipt`, and a
/// broadcast's `receipts`, are read by hand from the frame's members (``JSONObjectSyntax/members(_:)``): `JSONDecoder`
/// was an eighth of the gateway's time in `Benchmarks/e2e.sh` profiles. A receipt is `indirect`, so the message is a
/// pointer's size and not its 441 bytes, copied with every string in it.
public typealias DeviceLinkInbound = DeviceLinkMessage.FromDevice<ReceivedReceipt, [CarriedReceivedReceipt]>

extension DeviceLinkMessage.ToDevice {
    /// Whether the message is about the link rather than one device: on a shared link it names no device.
    public var isAboutLink: Bool {
        switch self {
        case .carry, .heartbeat, .heartbeatAck: true
        case .welcome, .registered, .push, .install, .uninstall, .foreground, .restart, .focus, .summary, .deliverSummary,
             .startActivity, .endActivity, .interact, .error: false
        }
    }
}

extension DeviceLinkMessage.FromDevice {
    /// Whether the message is about the link rather than one device: on a shared link it names no device.
    public var isAboutLink: Bool {
        switch self {
        case .link, .receipts, .heartbeat, .heartbeatAck: true
        case .hello, .register, .unregister, .installRefused, .ack, .receipt, .attachmentCopy, .interacted, .summarized,
             .activities, .error: false
        }
    }

    /// The message with its receipts in another form: how the gateway makes a ``DeviceLinkInbound`` of a message it
    /// decoded whole (a receipt the hand reader did not take, in a test).
    public func mapReceipts<Receipt, Receipts>(_ receipt: (ReceiptBody) -> Receipt,
                                               _ receipts: (ReceiptsBody) -> Receipts) -> DeviceLinkMessage.FromDevice<Receipt, Receipts> {
        switch self {
        case .hello(let body): .hello(body)
        case .link(let body): .link(body)
        case .register(let body): .register(body)
        case .unregister(let body): .unregister(body)
        case .installRefused(let body): .installRefused(body)
        case .ack(let body): .ack(body)
        case .receipt(let body): .receipt(receipt(body))
        case .receipts(let body): .receipts(receipts(body))
        case .attachmentCopy(let body): .attachmentCopy(body)
        case .interacted(let body): .interacted(body)
        case .summarized(let body): .summarized(body)
        case .activities(let body): .activities(body)
        case .heartbeat(let body): .heartbeat(body)
        case .heartbeatAck(let body): .heartbeatAck(body)
        case .error(let body): .error(body)
        }
    }
}

extension AttachmentCopy {
    /// The messages that carry `bytes`, in order.
    public static func messages(for bytes: [UInt8], sha256: String, uti: String?) -> [DeviceLinkMessage.Written] {
        parts(of: bytes, sha256: sha256, uti: uti).map { .attachmentCopy($0) }
    }
}
