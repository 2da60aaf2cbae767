import Foundation

/// The rules of the broadcast APIs of iOS 18 (Apple, "Sending channel management requests to APNs" and "Sending
/// broadcast push notification requests to APNs",
/// https://developer.apple.com/documentation/usernotifications/sending-broadcast-push-notification-requests-to-apns).
///
/// Apple publishes no validation order here either; apnsim checks in the device API's order where the two share a
/// header, and for the rest: the path (`BadPath`, `MethodNotAllowed`), a push-type suffix on the bundle ID
/// (`TopicDisallowed`), `apns-channel-id` (`MissingChannelId`, `BadChannelId`), `apns-push-type` (`MissingPushType`,
/// `InvalidPushType`), `apns-priority`, `apns-expiration`, authentication and the app (`TopicMismatch`), the channel
/// (`ChannelNotRegistered`), and last what the channel's storage policy allows (`BadExpirationDate`).
extension PushValidator {
    /// A request to the channel management API: `/1/apps/{bundle-id}/channels` (POST, GET, DELETE) or
    /// `/1/apps/{bundle-id}/all-channels` (GET).
    public func validateChannelHead(_ head: PushRequestHead, environment: APNsEnvironment, auth: inout ConnectionAuth,
                                    world: borrowing World, now: Date) -> Result<ChannelPlan, Rejection> {
        let authVerdict = authorize(head, environment: environment, auth: &auth, world: world, now: now)
        if let rejection = Self.commonProblem(head) { return .failure(rejection) }
        let route = Self.channelRoute(head.path)
        guard let route else {
            return .failure(Rejection(.badPath,
                "'\(head.path)' is not a channel management path; use /1/apps/<bundle ID>/channels or /1/apps/<bundle ID>/all-channels"))
        }
        let allowed = route.all ? ["GET"] : ["POST", "GET", "DELETE"]
        guard allowed.contains(head.method) else {
            return .failure(Self.methodRejection(head.method, path: head.path, allowed: allowed))
        }
        let bundleID = route.bundleID
        if let rejection = Self.suffixProblem(bundleID) { return .failure(rejection) }
        if let rejection = Self.appRefusal(bundleID: bundleID, authVerdict: authVerdict, world: world) { return .failure(rejection) }
        if route.all { return .success(ChannelPlan(bundleID: bundleID, operation: .list)) }
        if head.method == "POST" { return .success(ChannelPlan(bundleID: bundleID, operation: .create)) }
        switch Self.channel(in: head, bundleID: bundleID, environment: environment, world: world) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let channel):
            return .success(ChannelPlan(bundleID: bundleID, operation: head.method == "GET" ? .read(channel) : .delete(channel)))
        }
    }

    /// A broadcast: `POST /4/broadcasts/apps/{bundle-id}` with `apns-channel-id` and `apns-push-type: liveactivity`.
    public func validateBroadcastHead(_ head: PushRequestHead, environment: APNsEnvironment, auth: inout ConnectionAuth,
                                      world: borrowing World, now: Date) -> Result<BroadcastPlan, Rejection> {
        let authVerdict = authorize(head, environment: environment, auth: &auth, world: world, now: now)
        if let rejection = Self.commonProblem(head) { return .failure(rejection) }
        guard let bundleID = Self.broadcastBundleID(inPath: head.path) else {
            return .failure(Rejection(.badPath, "'\(head.path)' is not a broadcast path; broadcasts go to /4/broadcasts/apps/<bundle ID>"))
        }
        guard head.method == "POST" else { return .failure(Self.methodRejection(head.method, path: head.path, allowed: ["POST"])) }
        if let rejection = Self.suffixProblem(bundleID) { return .failure(rejection) }
        guard let channelID = head["apns-channel-id"], !channelID.isEmpty else {
            return .failure(Rejection(.missingChannelId, "a broadcast needs apns-channel-id, the ID of the channel it is for"))
        }
        if let problem = BroadcastChannel.idProblem(channelID) { return .failure(Rejection(.badChannelId, problem)) }
        guard let pushType = head["apns-push-type"] else {
            return .failure(Rejection(.missingPushType, "a broadcast needs apns-push-type: liveactivity"))
        }
        // Apple's own samples spell it LiveActivity, Liveactivity and liveactivity.
        guard pushType.lowercased() == PushType.liveactivity.rawValue else {
            return .failure(Rejection(.invalidPushType, "apns-push-type '\(pushType)' cannot be broadcast; channels carry only liveactivity"))
        }
        // Apple's table lists apns-priority as required, but its own command-line samples leave it out at times;
        // apnsim takes a missing one as 10, as for device pushes.
        let priority: Int, expiration: PushPlan.Expiration
        switch (Self.priority(head["apns-priority"]), Self.expiration(head["apns-expiration"])) {
        case (.failure(let rejection), _), (_, .failure(let rejection)): return .failure(rejection)
        case (.success(let sentPriority), .success(let sentExpiration)): (priority, expiration) = (sentPriority, sentExpiration)
        }
        if let rejection = Self.appRefusal(bundleID: bundleID, authVerdict: authVerdict, world: world) { return .failure(rejection) }
        let channel: BroadcastChannel
        switch Self.channel(in: head, bundleID: bundleID, environment: environment, world: world) {
        case .failure(let rejection): return .failure(rejection)
        case .success(let found): channel = found
        }
        if channel.storagePolicy == .noStorage, expiration != .once {
            return .failure(Rejection(.badExpirationDate,
                "channel \(channel.id) stores no messages (message-storage-policy 0), so its broadcasts need apns-expiration: 0"))
        }
        return .success(BroadcastPlan(channel: channel, apnsID: head["apns-id"], priority: priority, expiration: expiration))
    }

    /// A create's body: `{"message-storage-policy": 0 or 1, "push-type": "LiveActivity"}`.
    public func channelStoragePolicy(_ body: some Collection<UInt8>) -> Result<BroadcastChannel.StoragePolicy, Rejection> {
        guard !body.isEmpty else {
            return .failure(Rejection(.payloadEmpty, #"a channel needs a body such as {"message-storage-policy":1,"push-type":"LiveActivity"}"#))
        }
        guard let fields = JSONObjectSyntax.object(body) else {
            return .failure(Rejection(.badRequestPayload, "the body is not a JSON object"))
        }
        if let unknown = fields.keys.sorted().first(where: { $0 != "message-storage-policy" && $0 != "push-type" }) {
            return .failure(Rejection(.badRequestParams,
                "the body has '\(unknown)'; a channel takes only message-storage-policy and push-type"))
        }
        guard let raw = fields["message-storage-policy"]?.integer, let policy = BroadcastChannel.StoragePolicy(rawValue: raw) else {
            // Apple's table has no reason for this; provider libraries report APNs answering MissingChannelQueueSize.
            return .failure(Rejection(.missingChannelQueueSize,
                "message-storage-policy is \(fields["message-storage-policy"]?.jsonText ?? "missing"); it must be 0 (no storage) or 1 (the most recent message)"))
        }
        guard let pushType = fields["push-type"] else {
            if !configuration.requireChannelPushType { return .success(policy) }
            return .failure(Rejection(.missingPushType, #"the body needs "push-type": "LiveActivity""#))
        }
        guard case .string(let name) = pushType, name.lowercased() == PushType.liveactivity.rawValue else {
            return .failure(Rejection(.invalidPushType, "push-type is \(pushType.jsonText); channels carry only LiveActivity"))
        }
        return .success(policy)
    }

    /// A broadcast's body: a JSON object of at most ``BroadcastPlan/payloadLimit`` bytes.
    public func validateBroadcastBody(_ body: some Collection<UInt8>) -> Rejection? {
        if body.isEmpty {
            return Rejection(.payloadEmpty, #"the broadcast has no body; send a Live Activity payload such as {"aps":{"event":"update",…}}"#)
        }
        if body.count > BroadcastPlan.payloadLimit {
            return Rejection(.payloadTooLarge, "the body is over \(BroadcastPlan.payloadLimit) bytes, the limit for broadcasts")
        }
        if !JSONObjectSyntax.isObject(body) {
            return Rejection(.badRequestPayload, "the body is not a JSON object")
        }
        return nil
    }

    // MARK: - Parts

    /// The bundle ID of a `/4/broadcasts/apps/{bundle-id}` path, or `nil` when the path is not one.
    public static func broadcastBundleID(inPath path: String) -> String? {
        let prefix = "/4/broadcasts/apps/"
        guard path.hasPrefix(prefix) else { return nil }
        let bundleID = path.dropFirst(prefix.count)
        guard !bundleID.isEmpty, !bundleID.contains("/") else { return nil }
        return String(bundleID)
    }

    /// The bundle ID of a channel management path, and whether it is `all-channels`; `nil` when the path is not one.
    public static func channelRoute(_ path: String) -> (bundleID: String, all: Bool)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "1", parts[2] == "apps", !parts[3].isEmpty,
              parts[4] == "channels" || parts[4] == "all-channels" else { return nil }
        return (String(parts[3]), parts[4] == "all-channels")
    }

    private static func commonProblem(_ head: PushRequestHead) -> Rejection? {
        if let name = head.firstDuplicateHeader {
            return Rejection(.duplicateHeaders, "the header \(name) appears more than once")
        }
        if let apnsID = head["apns-id"], !isCanonicalUUID(apnsID) {
            return Rejection(.badMessageId, "apns-id '\(apnsID)' is not a UUID in 8-4-4-4-12 hex form")
        }
        return nil
    }

    /// `BadPath` for a method this path does not take, `MethodNotAllowed` for one these APIs never take.
    private static func methodRejection(_ method: String, path: String, allowed: [String]) -> Rejection {
        let shown = method.isEmpty ? "no method" : method
        let takes = allowed.joined(separator: ", ")
        if ["GET", "POST", "DELETE"].contains(method) {
            return Rejection(.badPath, "\(path) takes \(takes), not \(shown)")
        }
        return Rejection(.methodNotAllowed, "the broadcast APIs take GET, POST and DELETE; this request used \(shown) (\(path) takes \(takes))")
    }

    private static func suffixProblem(_ bundleID: String) -> Rejection? {
        guard bundleID.contains(".push-type.") else { return nil }
        return Rejection(.topicDisallowed, "\(bundleID) has a push-type suffix; the broadcast APIs take the bare bundle ID")
    }

    /// Authentication, then whether the credentials may act for `bundleID` (`TopicMismatch` when not).
    private static func appRefusal(bundleID: String, authVerdict: AuthVerdict, world: borrowing World) -> Rejection? {
        switch authVerdict {
        case .refused(let rejection):
            return rejection
        case .grantedToken(let grant):
            guard let app = world.apps[bundleID] else {
                return Rejection(.topicMismatch, "no app \(bundleID) in this world; the provider token's team \(grant.teamID) cannot act for it")
            }
            guard app.team == grant.teamID else {
                return Rejection(.topicMismatch, "\(bundleID) belongs to team \(app.team); the token is for team \(grant.teamID)")
            }
            if let topics = grant.topics, !topics.contains(bundleID) {
                return Rejection(.topicMismatch, "key \(grant.keyID) is limited to \(topics.joined(separator: ", ")); not \(bundleID)")
            }
            return nil
        case .grantedCertificate(let certificate):
            guard certificate.topics.contains(bundleID) else {
                return Rejection(.topicMismatch, "the client certificate allows \(certificate.topics.joined(separator: ", ")); not \(bundleID)")
            }
            return nil
        }
    }

    private static func channel(in head: PushRequestHead, bundleID: String, environment: APNsEnvironment,
                                world: borrowing World) -> Result<BroadcastChannel, Rejection> {
        guard let id = head["apns-channel-id"], !id.isEmpty else {
            return .failure(Rejection(.missingChannelId, "this request needs apns-channel-id, the ID of a channel of \(bundleID)"))
        }
        if let problem = BroadcastChannel.idProblem(id) { return .failure(Rejection(.badChannelId, problem)) }
        guard let channel = world.channel(id, bundleID: bundleID, environment: environment) else {
            return .failure(Rejection(.channelNotRegistered,
                "\(bundleID) has no channel \(id) in \(environment) (it was never created here, or it was deleted)"))
        }
        return .success(channel)
    }
}
