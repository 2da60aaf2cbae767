import Foundation

/// The token-auth state of one provider connection, as APNs keeps it (Apple, "Establishing a token-based connection to
/// APNs"): which team and key the connection is bound to, and which token it last accepted. A value type;
/// ``authorize(_:environment:keys:now:)`` is the only event, and it returns the decision.
public struct ProviderTokenSession: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// A token whose `iat` is older than this is `ExpiredProviderToken` (Apple: one hour).
        public var tokenLifetime: TimeInterval = 3600
        /// A different token within this time of the last accepted one is `TooManyProviderTokenUpdates`
        /// (Apple: refresh no more often than every 20 minutes).
        public var minimumRefreshInterval: TimeInterval = 20 * 60
        /// How far in the future `iat` may lie before the token is refused as `InvalidProviderToken`.
        /// Apple does not say; five minutes covers ordinary clock skew.
        public var futureIssueTolerance: TimeInterval = 300
        /// The reason a key of the other environment is refused with: Apple's table says `BadEnvironmentKeyIdInToken`
        /// (the default); clients report the wire saying `BadEnvironmentKeyInToken`, and one that handles only one
        /// spelling is tested against each by setting this (`apnsim gateway --environment-key-reason`).
        public var environmentKeyReason: RejectionReason = .badEnvironmentKeyIdInToken

        public init() {}
    }

    /// What a successful authorization tells the rest of validation.
    public struct Grant: Sendable, Hashable {
        public var teamID: String
        public var keyID: String
        /// Topic-specific keys only: the bundle IDs the key may push to.
        public var topics: [String]?
    }

    public var configuration: Configuration
    /// The key the connection's first accepted token used; later tokens must use it or a related key.
    public private(set) var boundKeyID: String?
    public private(set) var boundTeamID: String?
    /// The token last accepted, and the whole header it came in (`header`: a provider sends the same one request after
    /// request, and comparing it is all a repeat costs).
    private var current: (compact: String, header: String, issuedAt: Date, acceptedAt: Date, grant: Grant)?

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Whether the connection has carried a valid token (it then gets its full stream allowance).
    public var hasAcceptedToken: Bool { current != nil }

    /// The team and key of the token last accepted.
    public var currentGrant: Grant? { current?.grant }

    /// Decides on the `authorization` header of one request and updates the session.
    /// - Parameters:
    ///   - authorization: the header value, `bearer <JWT>`, or `nil` when absent.
    ///   - environment: the environment of the endpoint the request came in on.
    ///   - keys: the world's keys by Key ID.
    ///   - now: the injected current time.
    public mutating func authorize(_ authorization: String?, environment: APNsEnvironment,
                                   keys: [String: ProviderKey], now: Date) -> Result<Grant, Rejection> {
        if let authorization, let current, current.header == authorization {
            // The very header of the token accepted last: its signature was checked then.
            if let expired = expiry(of: current.issuedAt, now: now) { return .failure(expired) }
            return .success(current.grant)
        }
        guard let authorization, !authorization.trimmingSpacesAndTabs.isEmpty else {
            return .failure(Rejection(.missingProviderToken,
                "no client certificate and no authorization header: send `authorization: bearer <JWT>` signed with your .p8 key"))
        }
        let scheme = authorization.prefix(7)
        guard scheme.lowercased() == "bearer " else {
            return .failure(Rejection(.invalidProviderToken, "the authorization header must be `bearer <JWT>`"))
        }
        let compact = String(authorization.dropFirst(7).trimmingSpacesAndTabs)
        guard !compact.isEmpty else {
            return .failure(Rejection(.missingProviderToken, "the authorization header says `bearer` but carries no token"))
        }

        if let current, current.compact == compact {
            // The same token again: its signature was checked when it was first accepted.
            if let expired = expiry(of: current.issuedAt, now: now) { return .failure(expired) }
            return .success(current.grant)
        }

        let token: ProviderToken
        switch ProviderToken.parse(compact) {
        case .success(let parsed): token = parsed
        case .failure(let problem): return .failure(Rejection(.invalidProviderToken, problem.description))
        }
        guard token.algorithm == "ES256" else {
            return .failure(Rejection(.invalidProviderToken, "the JWT uses alg \(token.algorithm); APNs accepts only ES256"))
        }
        guard let key = keys[token.keyID] else {
            return .failure(Rejection(.invalidProviderToken,
                "no key with Key ID \(token.keyID) is known; add it to the world (keys:) or use one of \(keys.keys.sorted().joined(separator: ", "))"))
        }
        guard key.team == token.teamID else {
            return .failure(Rejection(.invalidProviderToken,
                "key \(key.id) belongs to team \(key.team), but the token's iss is \(token.teamID)"))
        }
        guard token.isSignatureValid(for: key.publicKey) else {
            return .failure(Rejection(.invalidProviderToken,
                "the JWT signature does not verify with the public key of \(key.id); sign with that key's .p8 (ES256 over `header.claims`)"))
        }
        guard key.scope.allows(environment) else {
            return .failure(Rejection(configuration.environmentKeyReason,
                "key \(key.id) is a \(key.scope.rawValue) key; this is the \(environment) endpoint"))
        }
        if let boundKeyID, let boundKey = keys[boundKeyID], !boundKey.isRelated(to: key) {
            return .failure(Rejection(.unrelatedKeyIdInToken,
                "this connection is bound to key \(boundKeyID) of team \(boundKey.team) by its first push; key \(key.id) of team \(key.team) needs a new connection"))
        }
        if let expired = expiry(of: token.issuedAt, now: now) { return .failure(expired) }
        if token.issuedAt.timeIntervalSince(now) > configuration.futureIssueTolerance {
            return .failure(Rejection(.invalidProviderToken,
                "the token's iat \(Int64(saturating: token.issuedAt.timeIntervalSince1970)) is \(Int64(saturating: token.issuedAt.timeIntervalSince(now))) s in the future; check the provider's clock"))
        }
        if let current, now.timeIntervalSince(current.acceptedAt) < configuration.minimumRefreshInterval {
            let waited = Int64(saturating: now.timeIntervalSince(current.acceptedAt))
            return .failure(Rejection(.tooManyProviderTokenUpdates,
                "a new token came \(waited) s after the previous one on this connection; reuse a token for at least \(Int64(saturating: configuration.minimumRefreshInterval / 60)) minutes"))
        }

        let grant = Grant(teamID: key.team, keyID: key.id, topics: key.topics)
        current = (compact, authorization, token.issuedAt, now, grant)
        if boundKeyID == nil {
            boundKeyID = key.id
            boundTeamID = key.team
        }
        return .success(grant)
    }

    private func expiry(of issuedAt: Date, now: Date) -> Rejection? {
        let age = now.timeIntervalSince(issuedAt)
        guard age > configuration.tokenLifetime else { return nil }
        return Rejection(.expiredProviderToken,
            "the token was issued \(Int64(saturating: age / 60)) minutes ago; tokens last \(Int64(saturating: configuration.tokenLifetime / 60)) minutes, so sign a new one")
    }
}
