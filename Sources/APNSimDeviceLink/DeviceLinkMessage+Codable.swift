import APNSimRules

extension DeviceLinkMessage: Codable {
    private enum CodingKeys: String, CodingKey { case type }

    /// The `type` field of each message.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .link: "link"
        case .welcome: "welcome"
        case .register: "register"
        case .registered: "registered"
        case .unregister: "unregister"
        case .push: "push"
        case .install: "install"
        case .uninstall: "uninstall"
        case .installRefused: "installRefused"
        case .foreground: "foreground"
        case .restart: "restart"
        case .interact: "interact"
        case .focus: "focus"
        case .summary: "summary"
        case .deliverSummary: "deliverSummary"
        case .summarized: "summarized"
        case .interacted: "interacted"
        case .startActivity: "startActivity"
        case .endActivity: "endActivity"
        case .carry: "carry"
        case .receipts: "receipts"
        case .ack: "ack"
        case .receipt: "receipt"
        case .attachmentCopy: "attachmentCopy"
        case .heartbeat: "heartbeat"
        case .heartbeatAck: "heartbeatAck"
        case .error: "error"
        }
    }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .type)
        switch type {
        case "hello": self = .hello(try Hello(from: decoder))
        case "link": self = .link(try Link(from: decoder))
        case "welcome": self = .welcome(try Welcome(from: decoder))
        case "register": self = .register(try Registration(from: decoder))
        case "registered": self = .registered(try Registered(from: decoder))
        case "unregister": self = .unregister(try Unregistration(from: decoder))
        case "push": self = .push(try Delivery(from: decoder))
        case "install": self = .install(try AppManifest(from: decoder))
        case "uninstall": self = .uninstall(try Uninstall(from: decoder))
        case "installRefused": self = .installRefused(try InstallRefused(from: decoder))
        case "foreground": self = .foreground(try Foreground(from: decoder))
        case "restart": self = .restart(try Restart(from: decoder))
        case "interact": self = .interact(try Interact(from: decoder))
        case "focus": self = .focus(try FocusChange(from: decoder))
        case "summary": self = .summary(try SummaryChange(from: decoder))
        case "deliverSummary": self = .deliverSummary(try DeliverSummary(from: decoder))
        case "summarized": self = .summarized(try SummaryDelivery(from: decoder))
        case "interacted": self = .interacted(try Interacted(from: decoder))
        case "startActivity": self = .startActivity(try StartActivity(from: decoder))
        case "endActivity": self = .endActivity(try EndActivity(from: decoder))
        case "carry": self = .carry(try Carry(from: decoder))
        case "receipts": self = .receipts(try Receipts(from: decoder))
        case "ack": self = .ack(try Ack(from: decoder))
        case "receipt": self = .receipt(try Receipt(from: decoder))
        case "attachmentCopy": self = .attachmentCopy(try AttachmentCopy(from: decoder))
        case "heartbeat": self = .heartbeat(try Heartbeat(from: decoder))
        case "heartbeatAck": self = .heartbeatAck(try Heartbeat(from: decoder))
        case "error": self = .error(try LinkError(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: try decoder.container(keyedBy: CodingKeys.self),
                                                   debugDescription: "unknown message type \(type)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let body): try body.encode(to: encoder)
        case .link(let body): try body.encode(to: encoder)
        case .welcome(let body): try body.encode(to: encoder)
        case .register(let body): try body.encode(to: encoder)
        case .registered(let body): try body.encode(to: encoder)
        case .unregister(let body): try body.encode(to: encoder)
        case .push(let body): try body.encode(to: encoder)
        case .install(let body): try body.encode(to: encoder)
        case .uninstall(let body): try body.encode(to: encoder)
        case .installRefused(let body): try body.encode(to: encoder)
        case .foreground(let body): try body.encode(to: encoder)
        case .restart(let body): try body.encode(to: encoder)
        case .interact(let body): try body.encode(to: encoder)
        case .focus(let body): try body.encode(to: encoder)
        case .summary(let body): try body.encode(to: encoder)
        case .deliverSummary(let body): try body.encode(to: encoder)
        case .summarized(let body): try body.encode(to: encoder)
        case .interacted(let body): try body.encode(to: encoder)
        case .startActivity(let body): try body.encode(to: encoder)
        case .endActivity(let body): try body.encode(to: encoder)
        case .carry(let body): try body.encode(to: encoder)
        case .receipts(let body): try body.encode(to: encoder)
        case .ack(let body): try body.encode(to: encoder)
        case .receipt(let body): try body.encode(to: encoder)
        case .attachmentCopy(let body): try body.encode(to: encoder)
        case .heartbeat(let body), .heartbeatAck(let body): try body.encode(to: encoder)
        case .error(let body): try body.encode(to: encoder)
        }
    }
}
