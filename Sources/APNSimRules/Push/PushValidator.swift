import Foundation

/// Apple's request rules as pure functions: a request head (and later its body) in, a ``PushPlan`` or a
/// ``Rejection`` out. No I/O, no clock of its own.
///
/// Apple publishes no validation order. apnsim follows pushy's mock server (its ValidatingPushNotificationHandler), the
/// order clients are already tested against, with three placements of its own, each marked below:
///
///  0. `DuplicateHeaders` (apnsim: header parsing comes before reading any header)
///  1. `apns-id` → `BadMessageId`
///  2. `:method` → `MethodNotAllowed`
///  3. `:path` shape → `BadPath`, `MissingDeviceToken` (apnsim: a wrong path is a 404 whatever the headers say)
///  4. topic present → `MissingTopic`
///  5. `apns-collapse-id` → `BadCollapseId`
///  6. `apns-priority` → `BadPriority`
///  7. `apns-push-type` → `InvalidPushType` (unknown value, or a topic of another type)
///  8. priority allowed for the type → `BadPriority`
///  9. `apns-expiration` → `BadExpirationDate` (apnsim: pushy does not check it)
/// 10. token format → `BadDeviceToken`
/// 11. token registry → `BadDeviceToken` (unknown, other environment), `DeviceTokenNotForTopic`, 410
/// 12. authentication and topic permission (certificate or token)
/// 13. body: `PayloadEmpty`, `PayloadTooLarge`, not a JSON object (``validateBody(_:plan:)``)
///
/// Authentication (12) is evaluated on every request even when an earlier step already failed, because a
/// posted token still binds the connection and lifts its stream limit; only its verdict waits its turn.
public struct PushValidator: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Accept pushes to tokens the world does not know (they are recorded but go nowhere). Off: such
        /// tokens are `BadDeviceToken`, as on Apple's servers.
        public var acceptUnknownDeviceTokens = false
        /// Apple says priority 10 on a background push "is an error" but not which;
        /// apnsim answers `BadPriority`. Off: accepted as sent.
        public var rejectBackgroundPriority10 = true
        /// Apple documents no reason for a body that is not a JSON object; apnsim answers
        /// `PayloadEmpty`, the nearest in Apple's table, with an explanation. Off: accepted.
        public var rejectMalformedPayload = true
        /// A channel create's body without `push-type`: Apple's body has it and its table has `MissingPushType`;
        /// apnsim answers that. Off: taken as `LiveActivity`, the only push type a channel carries (APNSwift 6.4's
        /// client sends only `message-storage-policy`).
        public var requireChannelPushType = true
        /// `apns-collapse-id` limit in UTF-8 bytes.
        public var collapseIDLimit = 64

        public init() {}
    }

    public var configuration: Configuration

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Validates everything that the header block decides: steps 0–12.
    /// - Parameters:
    ///   - auth: the connection's auth state; token sessions are updated.
    ///   - now: the injected current time (token ages, expiration dates).
    public func validateHead(_ head: PushRequestHead, environment: APNsEnvironment, auth: inout ConnectionAuth,
                             world: borrowing World, now: Date) -> Result<PushPlan, Rejection> {
        let authVerdict = authorize(head, environment: environment, auth: &auth, world: world, now: now)
        return checkHead(head, environment: environment, auth: auth, world: world, now: now, authVerdict: authVerdict)
    }

    /// Steps 0–11, then the already-computed verdict of step 12.
    private func checkHead(_ head: PushRequestHead, environment: APNsEnvironment, auth: ConnectionAuth,
                           world: borrowing World, now: Date, authVerdict: AuthVerdict) -> Result<PushPlan, Rejection> {
        if let name = head.firstDuplicateHeader {
            return .failure(Rejection(.duplicateHeaders, "the header \(name) appears more than once"))
        }
        let apnsID = head["apns-id"]
        if let apnsID, !Self.isCanonicalUUID(apnsID) {
            return .failure(Rejection(.badMessageId, "apns-id '\(apnsID)' is not a UUID in 8-4-4-4-12 hex form"))
        }
        guard head.method == "POST" else {
            return .failure(Rejection(.methodNotAllowed, "APNs accepts only POST; this request used \(head.method.isEmpty ? "no method" : head.method)"))
        }
        let tokenText: Substring
        switch Self.tokenText(inPath: head.path) {
        case .some(let text) where text.isEmpty:
            return .failure(Rejection(.missingDeviceToken, "the path /3/device/ needs the device token after the last slash"))
        case .some(let text):
            tokenText = text
        case .none:
            return .failure(Rejection(.badPath, "'\(head.path)' is not a push path; pushes go to /3/device/<device token>"))
        }

        let topic: String
        if let sent = head["apns-topic"], !sent.isEmpty {
            topic = sent
        } else {
            switch auth {
            case .token:
                return .failure(Rejection(.missingTopic, "token-authenticated requests must name the app in apns-topic"))
            case .certificate(let certificate) where certificate.isMultiTopic:
                return .failure(Rejection(.missingTopic,
                    "the client certificate covers several topics (\(certificate.topics.joined(separator: ", "))), so apns-topic is required"))
            case .certificate(let certificate):
                guard let base = certificate.bundleID ?? certificate.topics.first else {
                    return .failure(Rejection(.missingTopic, "the client certificate has no UID, so apns-topic is required"))
                }
                topic = base
            case .badCertificate:
                topic = ""
            }
        }

        let collapseID = head["apns-collapse-id"]
        if let collapseID, collapseID.utf8.count > configuration.collapseIDLimit {
            return .failure(Rejection(.badCollapseId,
                "apns-collapse-id is \(collapseID.utf8.count) bytes; the limit is \(configuration.collapseIDLimit) bytes of UTF-8"))
        }

        let priority: Int
        switch Self.priority(head["apns-priority"]) {
        case .success(let value): priority = value
        case .failure(let rejection): return .failure(rejection)
        }

        let pushType: PushType
        if let sent = head["apns-push-type"] {
            guard let known = PushType(headerValue: sent) else {
                return .failure(Rejection(.invalidPushType,
                    "apns-push-type '\(sent)' is not one of \(PushType.all.map(\.rawValue).joined(separator: ", "))"))
            }
            pushType = known
        } else {
            pushType = PushType.inferred(fromTopic: topic)
        }
        if let mismatch = Self.topicMismatch(topic: topic, pushType: pushType) {
            return .failure(Rejection(.invalidPushType, mismatch))
        }
        if pushType == .background, priority == 10, configuration.rejectBackgroundPriority10 {
            return .failure(Rejection(.badPriority, "background pushes must use apns-priority 5 (or 1); 10 is an error for them"))
        }

        let expiration: PushPlan.Expiration
        switch Self.expiration(head["apns-expiration"]) {
        case .success(let value): expiration = value
        case .failure(let rejection): return .failure(rejection)
        }

        var problem = ""
        guard let token = DeviceToken(hex: tokenText, problem: &problem) else {
            return .failure(Rejection(.badDeviceToken, problem))
        }
        let bundleID = pushType.bundleID(fromTopic: topic)
        if let refusal = Self.registryRefusal(token: token, bundleID: bundleID, environment: environment, world: world,
                                              acceptUnknown: configuration.acceptUnknownDeviceTokens, now: now) {
            return .failure(refusal)
        }

        switch authVerdict {
        case .refused(let rejection): return .failure(rejection)
        case .grantedToken(let grant):
            if let refusal = Self.topicRefusal(bundleID: bundleID, grant: grant, world: world) {
                return .failure(refusal)
            }
        case .grantedCertificate(let certificate):
            if pushType.tokenAuthOnly {
                return .failure(Rejection(.topicDisallowed, "\(pushType) pushes need token authentication; certificates cannot send them"))
            }
            guard certificate.topics.contains(topic) else {
                return .failure(Rejection(.badTopic,
                    "the client certificate allows \(certificate.topics.joined(separator: ", ")); not \(topic)"))
            }
        }

        return .success(PushPlan(apnsID: apnsID, token: token, topic: topic, bundleID: bundleID, pushType: pushType,
                                 priority: priority, expiration: expiration, collapseID: collapseID,
                                 payloadLimit: pushType.payloadLimit))
    }

    /// Step 13, once the whole body has arrived (at most `plan.payloadLimit` bytes are ever kept).
    public func validateBody(_ body: some Collection<UInt8>, plan: PushPlan) -> Rejection? {
        if body.isEmpty {
            return Rejection(.payloadEmpty, "the request has no body; send a JSON object such as {\"aps\":{\"alert\":\"Hello\"}}")
        }
        if body.count > plan.payloadLimit {
            return Rejection(.payloadTooLarge, "the body is over \(plan.payloadLimit) bytes, the limit for \(plan.pushType) pushes")
        }
        if configuration.rejectMalformedPayload {
            if !JSONObjectSyntax.isObject(body) {
                return Rejection(.payloadEmpty,
                    "the body is not a JSON object; Apple documents no reason for this, and apnsim answers PayloadEmpty")
            }
        }
        return nil
    }

    /// The rejection for a body that grew past `plan.payloadLimit`, sent as soon as the limit is crossed.
    public func oversizedBody(plan: PushPlan) -> Rejection {
        Rejection(.payloadTooLarge, "the body is over \(plan.payloadLimit) bytes, the limit for \(plan.pushType) pushes")
    }
}
