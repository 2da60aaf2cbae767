import APNSimProvider
import APNSimRules
import Crypto
import Foundation
import Testing

/// The provider's JWT signer, read back by the gateway's rules (``ProviderToken``) as Apple reads a provider token.
@Suite("Provider token signer")
struct ProviderTokenSignerTests {
    static let key = P256.Signing.PrivateKey()
    static let issued = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("A token carries ES256, the key ID, the team and the time it was issued, signed by the key, raw or DER",
          arguments: [ProviderTokenSigner.SignatureFormat.raw, .der])
    func token(_ format: ProviderTokenSigner.SignatureFormat) throws {
        let signer = ProviderTokenSigner(key: Self.key, keyID: "SIMKEY0001", teamID: "SIMTEAM001")
        let token = try ProviderToken.parse(signer.token(issuedAt: Self.issued, format: format)).get()
        #expect(token.algorithm == "ES256")
        #expect(token.keyID == "SIMKEY0001")
        #expect(token.teamID == "SIMTEAM001")
        #expect(token.issuedAt == Self.issued)
        #expect(token.isSignatureValid(for: Self.key.publicKey))
        #expect(!token.isSignatureValid(for: P256.Signing.PrivateKey().publicKey), "another key's signature")
    }

    @Test("The repository's development key signs from its .p8 text; text that is no PEM key is refused")
    func p8() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p8 = try String(contentsOf: root.appendingPathComponent("Certs/AuthKey_SIMKEY0001.p8"), encoding: .utf8)
        let published = try String(contentsOf: root.appendingPathComponent("Certs/AuthKey_SIMKEY0001.pub.pem"), encoding: .utf8)
        let signer = try ProviderTokenSigner(p8: p8, keyID: "SIMKEY0001", teamID: "SIMTEAM001")
        let token = try ProviderToken.parse(signer.token(issuedAt: Self.issued)).get()
        #expect(token.isSignatureValid(for: try P256.Signing.PublicKey(pemRepresentation: published)))
        #expect(throws: (any Error).self) { try ProviderTokenSigner(p8: "not a key", keyID: "SIMKEY0001", teamID: "SIMTEAM001") }
    }

    @Test("A token is renewed at 50 minutes, before Apple's hour")
    func renewal() {
        #expect(ProviderTokenSigner.isFresh(issuedAt: Self.issued, at: Self.issued + 50 * 60 - 1))
        #expect(!ProviderTokenSigner.isFresh(issuedAt: Self.issued, at: Self.issued + 50 * 60))
    }
}
