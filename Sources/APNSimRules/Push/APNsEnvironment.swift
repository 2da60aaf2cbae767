/// The two separate APNs universes: tokens, keys and certificates of one never work in the other.
public enum APNsEnvironment: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `api.sandbox.push.apple.com`: apps signed for development.
    case development
    /// `api.push.apple.com`: App Store, TestFlight and ad-hoc builds.
    case production

    public var description: String { rawValue }

    /// The other environment.
    public var other: APNsEnvironment { self == .development ? .production : .development }

    /// Apple's host name for the environment, used in explanations.
    public var appleHost: String {
        self == .development ? "api.sandbox.push.apple.com" : "api.push.apple.com"
    }
}
