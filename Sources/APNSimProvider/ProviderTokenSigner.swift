import APNSimRules
import Crypto
import Foundation

/// Signs APNs provider tokens (ES256 JWTs) with a `.p8` key, the way provider libraries do.
///
/// ```swift
/// let signer = try ProviderTokenSigner(p8: String(contentsOfFile: "Certs/AuthKey_SIMKEY0001.p8"),
///                                      keyID: "SIMKEY0001", teamID: "SIMTEAM001")
/// let jwt = signer.token(issuedAt: Date())
/// ```
public struct ProviderTokenSigner: Sendable {
    public let keyID: String
    public let teamID: String
    private let key: P256.Signing.PrivateKey

    /// How the signature bytes are laid out: JWS's raw `r‖s`, or DER as openssl and Java produce it.
    public enum SignatureFormat: Sendable {
        case raw, der
    }

    /// - Parameter p8: the PEM text of the `.p8` file (PKCS#8 "PRIVATE KEY").
    public init(p8: String, keyID: String, teamID: String) throws {
        self.key = try P256.Signing.PrivateKey(pemRepresentation: p8)
        self.keyID = keyID
        self.teamID = teamID
    }

    public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// How old a token may get before a provider makes a new one: 50 minutes, as provider libraries do. Apple
    /// refuses one older than an hour and asks for no new one more often than every 20 minutes ("Establishing a
    /// token-based connection to APNs",
    /// https://developer.apple.com/documentation/usernotifications/establishing-a-token-based-connection-to-apns).
    public static let renewalAge: TimeInterval = 50 * 60

    /// Whether a token issued at `issuedAt` may still be sent at `now`, or a new one is due.
    public static func isFresh(issuedAt: Date, at now: Date) -> Bool {
        now.timeIntervalSince(issuedAt) < renewalAge
    }

    /// A token as Apple's documentation builds it: header `{"alg":"ES256","kid":…}`, claims `{"iss":…,"iat":…}`.
    public func token(issuedAt: Date, format: SignatureFormat = .raw) -> String {
        sign(header: #"{"alg":"ES256","kid":"\#(keyID)"}"#,
             claims: #"{"iss":"\#(teamID)","iat":\#(Int64(saturating: issuedAt.timeIntervalSince1970))}"#, format: format)
    }

    /// Signs arbitrary header and claims JSON exactly as given (for tests of what the gateway tolerates).
    public func sign(header: String, claims: String, format: SignatureFormat = .raw) -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try! key.signature(for: Data(input.utf8))  // P-256 signing of bytes does not fail.
        let bytes = format == .raw ? signature.rawRepresentation : signature.derRepresentation
        return input + "." + Base64URL.encode(bytes)
    }
}
