import Crypto
import Foundation

/// A provider authentication key (the public half of an Apple `.p8`): what signs JWTs for one team.
public struct ProviderKey: Sendable {
    /// The 10-character Key ID that JWTs name in `kid`.
    public var id: String
    public var team: String
    /// Which environments the key may be used on (Apple, "Establishing a token-based connection to APNs": team keys
    /// became environment-scoped in 2025).
    public var scope: Scope
    /// For topic-specific keys: the topics (bundle IDs) the key may push to; `nil` for a team-scoped key.
    public var topics: [String]?
    /// A key whose tokens may share a connection with this key's tokens (Apple, "Establishing a token-based connection
    /// to APNs", "related" key).
    public var relatedKeyID: String?
    public var publicKey: P256.Signing.PublicKey

    public enum Scope: String, Sendable, Hashable, Codable {
        case development, production
        /// A legacy team key valid in both environments.
        case both

        public func allows(_ environment: APNsEnvironment) -> Bool {
            switch self {
            case .both: true
            case .development: environment == .development
            case .production: environment == .production
            }
        }
    }

    public init(id: String, team: String, scope: Scope = .both, topics: [String]? = nil, relatedKeyID: String? = nil,
                publicKey: P256.Signing.PublicKey) {
        self.id = id
        self.team = team
        self.scope = scope
        self.topics = topics
        self.relatedKeyID = relatedKeyID
        self.publicKey = publicKey
    }

    /// Whether tokens of `other` may follow tokens of this key on one connection.
    public func isRelated(to other: ProviderKey) -> Bool {
        other.id == id || relatedKeyID == other.id || other.relatedKeyID == id
    }
}
