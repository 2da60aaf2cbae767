import APNSimRules

/// The `type` member every message carries, the only key of the envelope: the payload's own members sit beside it.
private enum TypeKey: String, CodingKey { case type }

extension DeviceLinkMessage {
    /// The cases of ``ToDevice``, each named as its `type` field: the one list of them, which the decoder switches over
    /// and tests check their samples against (a case added to ``ToDevice`` stops ``ToDevice/kind`` compiling until it
    /// is here).
    public enum ToDeviceKind: String, Sendable, Hashable, CaseIterable {
        case welcome, registered, push, carry, install, uninstall, foreground, restart, focus, summary, deliverSummary
        case startActivity, endActivity, interact, heartbeat, heartbeatAck, error
    }

    /// The cases of ``FromDevice``, each named as its `type` field, as ``ToDeviceKind`` is for ``ToDevice``.
    public enum FromDeviceKind: String, Sendable, Hashable, CaseIterable {
        case hello, link, register, unregister, installRefused, ack, receipt, receipts, attachmentCopy, interacted, summarized
        case activities, heartbeat, heartbeatAck, error
    }
}

extension DeviceLinkMessage.ToDevice: Codable {
    /// The message's case: the `type` field it is written with.
    public var kind: DeviceLinkMessage.ToDeviceKind {
        switch self {
        case .welcome: .welcome
        case .registered: .registered
        case .push: .push
        case .carry: .carry
        case .install: .install
        case .uninstall: .uninstall
        case .foreground: .foreground
        case .restart: .restart
        case .focus: .focus
        case .summary: .summary
        case .deliverSummary: .deliverSummary
        case .startActivity: .startActivity
        case .endActivity: .endActivity
        case .interact: .interact
        case .heartbeat: .heartbeat
        case .heartbeatAck: .heartbeatAck
        case .error: .error
        }
    }

    /// The `type` field of each message.
    public var type: String { kind.rawValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        let type = try container.decode(String.self, forKey: .type)
        guard let kind = DeviceLinkMessage.ToDeviceKind(rawValue: type) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container,
                                                   debugDescription: "\(type) is no message a gateway sends a device")
        }
        switch kind {
        case .welcome: self = .welcome(try .init(from: decoder))
        case .registered: self = .registered(try .init(from: decoder))
        case .push: self = .push(try .init(from: decoder))
        case .carry: self = .carry(try .init(from: decoder))
        case .install: self = .install(try .init(from: decoder))
        case .uninstall: self = .uninstall(try .init(from: decoder))
        case .foreground: self = .foreground(try .init(from: decoder))
        case .restart: self = .restart(try .init(from: decoder))
        case .focus: self = .focus(try .init(from: decoder))
        case .summary: self = .summary(try .init(from: decoder))
        case .deliverSummary: self = .deliverSummary(try .init(from: decoder))
        case .startActivity: self = .startActivity(try .init(from: decoder))
        case .endActivity: self = .endActivity(try .init(from: decoder))
        case .interact: self = .interact(try .init(from: decoder))
        case .heartbeat: self = .heartbeat(try .init(from: decoder))
        case .heartbeatAck: self = .heartbeatAck(try .init(from: decoder))
        case .error: self = .error(try .init(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .welcome(let body): try body.encode(to: encoder)
        case .registered(let body): try body.encode(to: encoder)
        case .push(let body): try body.encode(to: encoder)
        case .carry(let body): try body.encode(to: encoder)
        case .install(let body): try body.encode(to: encoder)
        case .uninstall(let body): try body.encode(to: encoder)
        case .foreground(let body): try body.encode(to: encoder)
        case .restart(let body): try body.encode(to: encoder)
        case .focus(let body): try body.encode(to: encoder)
        case .summary(let body): try body.encode(to: encoder)
        case .deliverSummary(let body): try body.encode(to: encoder)
        case .startActivity(let body): try body.encode(to: encoder)
        case .endActivity(let body): try body.encode(to: encoder)
        case .interact(let body): try body.encode(to: encoder)
        case .heartbeat(let body), .heartbeatAck(let body): try body.encode(to: encoder)
        case .error(let body): try body.encode(to: encoder)
        }
    }
}

extension DeviceLinkMessage.FromDevice {
    /// The message's case: the `type` field it is written with.
    public var kind: DeviceLinkMessage.FromDeviceKind {
        switch self {
        case .hello: .hello
        case .link: .link
        case .register: .register
        case .unregister: .unregister
        case .installRefused: .installRefused
        case .ack: .ack
        case .receipt: .receipt
        case .receipts: .receipts
        case .attachmentCopy: .attachmentCopy
        case .interacted: .interacted
        case .summarized: .summarized
        case .activities: .activities
        case .heartbeat: .heartbeat
        case .heartbeatAck: .heartbeatAck
        case .error: .error
        }
    }

    /// The `type` field of each message.
    public var type: String { kind.rawValue }
}

extension DeviceLinkMessage.FromDevice: Encodable where ReceiptBody: Encodable, ReceiptsBody: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .hello(let body): try body.encode(to: encoder)
        case .link(let body): try body.encode(to: encoder)
        case .register(let body): try body.encode(to: encoder)
        case .unregister(let body): try body.encode(to: encoder)
        case .installRefused(let body): try body.encode(to: encoder)
        case .ack(let body): try body.encode(to: encoder)
        case .receipt(let body): try body.encode(to: encoder)
        case .receipts(let body): try body.encode(to: encoder)
        case .attachmentCopy(let body): try body.encode(to: encoder)
        case .interacted(let body): try body.encode(to: encoder)
        case .summarized(let body): try body.encode(to: encoder)
        case .activities(let body): try body.encode(to: encoder)
        case .heartbeat(let body), .heartbeatAck(let body): try body.encode(to: encoder)
        case .error(let body): try body.encode(to: encoder)
        }
    }
}

extension DeviceLinkMessage.FromDevice: Decodable where ReceiptBody: Decodable, ReceiptsBody: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        let type = try container.decode(String.self, forKey: .type)
        guard let kind = DeviceLinkMessage.FromDeviceKind(rawValue: type) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: container,
                                                   debugDescription: "\(type) is no message a device sends a gateway")
        }
        switch kind {
        case .hello: self = .hello(try .init(from: decoder))
        case .link: self = .link(try .init(from: decoder))
        case .register: self = .register(try .init(from: decoder))
        case .unregister: self = .unregister(try .init(from: decoder))
        case .installRefused: self = .installRefused(try .init(from: decoder))
        case .ack: self = .ack(try .init(from: decoder))
        case .receipt: self = .receipt(try .init(from: decoder))
        case .receipts: self = .receipts(try .init(from: decoder))
        case .attachmentCopy: self = .attachmentCopy(try .init(from: decoder))
        case .interacted: self = .interacted(try .init(from: decoder))
        case .summarized: self = .summarized(try .init(from: decoder))
        case .activities: self = .activities(try .init(from: decoder))
        case .heartbeat: self = .heartbeat(try .init(from: decoder))
        case .heartbeatAck: self = .heartbeatAck(try .init(from: decoder))
        case .error: self = .error(try .init(from: decoder))
        }
    }
}
