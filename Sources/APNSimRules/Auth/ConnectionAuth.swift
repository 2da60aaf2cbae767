/// How a provider connection authenticates, decided once at the TLS handshake: a client certificate means
/// certificate auth, none means token auth (Apple, "Establishing a connection to APNs").
public enum ConnectionAuth: Sendable {
    /// Token auth: the session tracks the connection's team, key and current token.
    case token(ProviderTokenSession)
    /// Certificate auth with a certificate that chains to the provider CA.
    case certificate(ProviderCertificate)
    /// A client certificate that did not pass: every request gets 403 `BadCertificate` with this explanation.
    case badCertificate(String)

    public var modeName: String {
        switch self {
        case .token: "token"
        case .certificate, .badCertificate: "certificate"
        }
    }
}
