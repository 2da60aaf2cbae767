import APNSimDeviceLink
import APNSimRules

/// Everything the gateway's end of one device link decides about who is on it, as one value in the style of
/// ``ProviderConnectionStateMachine``: it takes what happened (a message and the device it names, a read timeout,
/// shutdown, a fault ending one device's session, the link's close) and returns what to do. It does no I/O;
/// ``DeviceLinkHandler`` carries out its actions, and tests drive it with plain values (`DeviceLinkStateMachineTests`).
///
/// A link opens with one device's `hello` (the device's own link) or a process's `link` (a link its devices share, on
/// which each then joins with a `hello` naming itself; docs/device-link.md). Generic over the session it keeps for each
/// device, which the handler makes (``Opening``).
///
/// Nothing here assumes a device has one gateway, or that an answer comes back on the link that carried its push: an
/// `ack` or `receipt` names its push, and the device directory finds the push wherever it was sent; a `receipts`
/// message must only name devices of this link's process.
struct DeviceLinkStateMachine<Session> {
    enum Phase {
        /// Nothing said yet.
        case opening
        /// One device's own link, and the process its hello named.
        case own(Session, host: String?)
        /// A link the devices of process `host` share, with the session of each device that said hello on it.
        case shared(host: String, sessions: [String: Session])
        /// The link closed; its sessions have ended.
        case closed
    }

    /// What a device's session starts from: its hello, the process it runs in, and on a shared link the name each
    /// message about it carries.
    struct Opening {
        var hello: DeviceLinkMessage.Hello
        var host: String?
        var address: String?
    }

    enum Action {
        /// Nothing to do (the link has closed).
        case none
        /// A device's session starts: welcome it and put it in the directory, after ending `replaced` (the same device's
        /// earlier session on this shared link).
        case start(Session, replaced: Session?)
        /// A shared link is accepted: welcome it; its devices join one by one.
        case welcomeLink
        /// What a device says in its session, for the gateway's services: an ack, a receipt, a registration, an answer
        /// to a request.
        case forward(DeviceLinkInbound, from: Session)
        /// Receipts of pushes carried to process `host`'s devices; each must name one of them.
        case takeReceipts([CarriedReceivedReceipt], host: String?)
        /// Answer a heartbeat: in `session`, or on the link itself (`nil`, a shared link's).
        case answerHeartbeat(DeviceLinkMessage.Heartbeat, in: Session?)
        /// A heartbeat the gateway sent was answered: the link is alive (its read timer has seen the read).
        case alive
        /// One device's session ends while the link stays up: tell the device `error`, or nothing when it ended it
        /// itself (`reason`, its error's).
        case endSession(Session, telling: DeviceLinkMessage.LinkError?, reason: String)
        /// A device on a shared link is told why its message was not taken (a bad hello, a message before hello); the
        /// link stays up.
        case refuse(deviceID: String, DeviceLinkMessage.LinkError)
        /// The link ends: send `error`, then close. Its sessions end when it has closed.
        case fail(DeviceLinkMessage.LinkError)
        /// The link ends without a word: its device (or process, `session` `nil`) said why.
        case peerClosed(reason: String, session: Session?)
    }

    private(set) var phase = Phase.opening
    /// The heartbeat interval the gateway gives its devices, for the timeout's sentence.
    let heartbeatInterval: Double

    init(heartbeatInterval: Double) {
        self.heartbeatInterval = heartbeatInterval
    }

    /// A message from the link, naming `deviceID` on a shared link. `open` makes the session of a device that says hello.
    mutating func received(_ inbound: DeviceLinkInbound, deviceID: String?, open: (Opening) -> Session) -> Action {
        switch phase {
        case .opening:
            return opening(inbound, open: open)
        case .own(let session, let host):
            return inSession(inbound, session: session, host: host)
        case .shared(let host, let sessions):
            guard let deviceID else { return aboutLink(inbound, host: host) }
            if case .hello(let hello) = inbound {
                guard hello.version == DeviceLinkMessage.protocolVersion, hello.device.id == deviceID else {
                    let why = hello.device.id != deviceID
                        ? "a hello names device \(hello.device.id) and deviceID \(deviceID); they must be the same"
                        : "this gateway speaks device-link version \(DeviceLinkMessage.protocolVersion); the device sent \(hello.version)"
                    return .refuse(deviceID: deviceID, .init(reason: "BadHello", explanation: why))
                }
                // The hello's host is the link's: the process that opened the link hosts every device on it.
                let session = open(Opening(hello: hello, host: host, address: deviceID))
                return .start(session, replaced: changeSessions { $0.updateValue(session, forKey: deviceID) } ?? nil)
            }
            guard let session = sessions[deviceID] else {
                return .refuse(deviceID: deviceID, .init(reason: "HelloFirst",
                                                         explanation: "device \(deviceID) has not said hello on this link; its first message is hello"))
            }
            if case .error(let error) = inbound {
                // The device ends its session; the shared link stays.
                removeSession(deviceID)
                return .endSession(session, telling: nil, reason: error.reason)
            }
            return inSession(inbound, session: session, host: host)
        case .closed:
            return .none
        }
    }

    /// The link's first message: one device's `hello`, or a process's `link`.
    private mutating func opening(_ inbound: DeviceLinkInbound, open: (Opening) -> Session) -> Action {
        let version: Int
        switch inbound {
        case .hello(let hello): version = hello.version
        case .link(let link): version = link.version
        case .register, .unregister, .installRefused, .ack, .receipt, .receipts, .attachmentCopy, .interacted, .summarized, .activities,
             .heartbeat, .heartbeatAck, .error:
            return .fail(.init(reason: "HelloFirst", explanation: "the first message on a device link is hello, or link on a link devices share"))
        }
        guard version == DeviceLinkMessage.protocolVersion else {
            return .fail(.init(reason: "UnsupportedVersion",
                               explanation: "this gateway speaks device-link version \(DeviceLinkMessage.protocolVersion); the device sent \(version)"))
        }
        switch inbound {
        case .hello(let hello):
            let session = open(Opening(hello: hello, host: hello.host, address: nil))
            phase = .own(session, host: hello.host)
            return .start(session, replaced: nil)
        case .link(let link):
            phase = .shared(host: link.host, sessions: [:])
            return .welcomeLink
        case .register, .unregister, .installRefused, .ack, .receipt, .receipts, .attachmentCopy, .interacted, .summarized, .activities,
             .heartbeat, .heartbeatAck, .error:
            preconditionFailure("refused above")
        }
    }

    /// A message about a shared link itself (it names no device).
    private func aboutLink(_ inbound: DeviceLinkInbound, host: String) -> Action {
        switch inbound {
        case .receipts(let receipts): .takeReceipts(receipts, host: host)
        case .heartbeat(let beat): .answerHeartbeat(beat, in: nil)
        case .heartbeatAck: .alive
        case .error(let error): .peerClosed(reason: error.reason, session: nil)
        case .hello, .link, .register, .unregister, .installRefused, .ack, .receipt, .attachmentCopy, .interacted, .summarized, .activities:
            .fail(.init(reason: "NoDevice", explanation: "on a link devices share, a \(inbound.type) message names its device in deviceID"))
        }
    }

    /// What a device says in its session, on its own link or a shared one.
    private func inSession(_ inbound: DeviceLinkInbound, session: Session, host: String?) -> Action {
        switch inbound {
        case .ack, .receipt, .register, .unregister, .installRefused, .interacted, .summarized, .activities, .attachmentCopy:
            .forward(inbound, from: session)
        case .receipts(let receipts):
            // Receipts of pushes carried for several devices of this link's process: each must be one of them.
            .takeReceipts(receipts, host: host)
        case .heartbeat(let beat):
            .answerHeartbeat(beat, in: session)
        case .heartbeatAck:
            .alive
        case .error(let error):
            .peerClosed(reason: error.reason, session: session)  // a device's own link (a shared one's is above)
        case .hello, .link:
            .fail(.init(reason: "UnexpectedMessage", explanation: "a device says \(inbound.type) once, as its link's first message"))
        }
    }

    /// A fault ends device `deviceID`'s session on this shared link: it is told so, and the link stays up.
    mutating func endSession(_ deviceID: String) -> Action {
        guard let session = removeSession(deviceID) else { return .none }
        return .endSession(session, telling: .init(reason: "LinkDropped",
                                                   explanation: "the device's session on this link ended (a deviceLink fault); say hello again"),
                           reason: "LinkDropped")
    }

    /// Nothing was read for three heartbeat intervals.
    func readTimedOut() -> Action {
        .fail(.init(reason: "HeartbeatTimeout",
                    explanation: "nothing arrived for three heartbeat intervals (\(heartbeatInterval * 3) s); reconnect"))
    }

    /// The gateway is stopping.
    func quiesce() -> Action {
        .fail(.init(reason: "Shutdown", explanation: "the gateway is stopping; reconnect later"))
    }

    /// The link closed: the sessions that end with it.
    mutating func closed() -> [Session] {
        defer { phase = .closed }
        return sessions
    }

    /// Every session on the link.
    var sessions: [Session] {
        switch phase {
        case .opening, .closed: []
        case .own(let session, _): [session]
        case .shared(_, let sessions): Array(sessions.values)
        }
    }

    @discardableResult
    private mutating func removeSession(_ deviceID: String) -> Session? {
        changeSessions { $0.removeValue(forKey: deviceID) } ?? nil
    }

    /// Changes a shared link's sessions in place (`nil` when the link is not shared).
    private mutating func changeSessions<T>(_ change: (inout [String: Session]) -> T) -> T? {
        guard case .shared(let host, var sessions) = phase else { return nil }
        phase = .closed  // the dictionary is changed in place, not copied
        defer { phase = .shared(host: host, sessions: sessions) }
        return change(&sessions)
    }
}

extension DeviceLinkStateMachine.Action: Equatable where Session: Equatable {}
