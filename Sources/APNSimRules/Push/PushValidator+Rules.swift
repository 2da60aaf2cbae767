import Foundation

extension PushValidator {
    /// The outcome of step 12, computed before the steps ahead of it.
    enum AuthVerdict {
        case grantedToken(ProviderTokenSession.Grant)
        case grantedCertificate(ProviderCertificate)
        case refused(Rejection)
    }

    func authorize(_ head: PushRequestHead, environment: APNsEnvironment, auth: inout ConnectionAuth,
                   world: borrowing World, now: Date) -> AuthVerdict {
        switch auth {
        case .token(var session):
            let result = session.authorize(head["authorization"], environment: environment, keys: world.keys, now: now)
            auth = .token(session)
            switch result {
            case .success(let grant): return .grantedToken(grant)
            case .failure(let rejection): return .refused(rejection)
            }
        case .certificate(let certificate):
            guard certificate.environments.contains(environment) else {
                return .refused(Rejection(.badCertificateEnvironment,
                    "the client certificate is for \(certificate.environments.map(\.rawValue).sorted().joined(separator: " and ")); this is the \(environment) endpoint"))
            }
            return .grantedCertificate(certificate)
        case .badCertificate(let why):
            return .refused(Rejection(.badCertificate, why))
        }
    }

    /// `apns-priority`: 10 when absent, else 10, 5 or 1.
    static func priority(_ text: String?) -> Result<Int, Rejection> {
        switch text {
        case nil, "10": .success(10)
        case "5": .success(5)
        case "1": .success(1)
        case let other?: .failure(Rejection(.badPriority, "apns-priority '\(other)' is not one of 10, 5 or 1"))
        }
    }

    /// `apns-expiration`: stored by default when absent, once for `0`, else until that UNIX time. A past non-zero date
    /// is treated like 0 (the store-and-forward layer delivers it now or never); Apple does not say what it does.
    static func expiration(_ text: String?) -> Result<PushPlan.Expiration, Rejection> {
        guard let text else { return .success(.storeByDefault) }
        guard let seconds = Int64(text), seconds >= 0 else {
            return .failure(Rejection(.badExpirationDate, "apns-expiration '\(text)' is not a UNIX time in whole seconds"))
        }
        return .success(seconds == 0 ? .once : .until(Date(timeIntervalSince1970: TimeInterval(seconds))))
    }

    /// The token text after `/3/device/`, or `nil` when the path is not a device-push path.
    public static func tokenText(inPath path: String) -> Substring? {
        let prefix = "/3/device/"
        guard path.hasPrefix(prefix) else { return nil }
        return path.dropFirst(prefix.count)
    }

    /// Why `topic` cannot carry `pushType`, or `nil` when it can.
    static func topicMismatch(topic: String, pushType: PushType) -> String? {
        if pushType == .mdm { return nil }
        if pushType.topicSuffix.isEmpty {
            let implied = PushType.inferred(fromTopic: topic)
            guard implied.topicSuffix.isEmpty else {
                return "topic \(topic) is a \(implied) topic; \(pushType) pushes go to the bare bundle ID"
            }
            return nil
        }
        guard topic.hasSuffix(pushType.topicSuffix), topic.count > pushType.topicSuffix.count else {
            return "\(pushType) pushes need a topic ending in \(pushType.topicSuffix); got \(topic)"
        }
        return nil
    }

    static func registryRefusal(token: DeviceToken, bundleID: String, environment: APNsEnvironment,
                                world: borrowing World, acceptUnknown: Bool, now: Date) -> Rejection? {
        guard let record = world.tokens[token] else {
            if acceptUnknown { return nil }
            return Rejection(.badDeviceToken,
                "no device holds token \(token.short) in this world; register it (POST /v1/tokens) or use a token a device printed")
        }
        guard record.environment == environment else {
            return Rejection(.badDeviceToken,
                "token \(token.short) is a \(record.environment) token; this is the \(environment) endpoint (\(environment.appleHost))")
        }
        guard record.bundleID == bundleID else {
            return Rejection(.deviceTokenNotForTopic, "token \(token.short) belongs to \(record.bundleID), not \(bundleID)")
        }
        // A token whose end lies in the future is still good: Apple answers 410 only some time after an app is
        // removed ("Handling notification responses from APNs"), which apnsim models as the gateway's uninstall delay.
        if record.state != .active, let since = record.invalidSince, since > now { return nil }
        switch record.state {
        case .active:
            return nil
        case .unregistered:
            // Why in the words that fit the token: only one a device held had an app that was removed.
            let why = switch record.holder {
            case .removed(let device, _)?: "the app was removed from device \(device)"
            case .device?, nil: record.kind == .declared ? "the world declares it unregistered" : "it is no longer valid for the topic"
            }
            return Rejection(.unregistered, "token \(token.short) is no longer registered for \(bundleID) (\(why))",
                             invalidSince: record.invalidSince)
        case .expired:
            return Rejection(.expiredToken, "token \(token.short) has expired", invalidSince: record.invalidSince)
        }
    }

    static func topicRefusal(bundleID: String, grant: ProviderTokenSession.Grant, world: borrowing World) -> Rejection? {
        // Only pushes to unknown tokens (acceptUnknownDeviceTokens) reach here with an app the world lacks.
        guard let app = world.apps[bundleID] else { return nil }
        guard app.team == grant.teamID else {
            return Rejection(.invalidProviderToken, "\(bundleID) belongs to team \(app.team); the token is for team \(grant.teamID)")
        }
        if let topics = grant.topics, !topics.contains(bundleID) {
            return Rejection(.invalidProviderToken,
                "key \(grant.keyID) is limited to \(topics.joined(separator: ", ")); it cannot push to \(bundleID)")
        }
        return nil
    }

    /// `8-4-4-4-12` hex digits in either case (Apple says lower case; real servers generate upper case).
    static func isCanonicalUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
                guard isHex else { return false }
            }
        }
        return true
    }
}
