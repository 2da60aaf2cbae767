import APNSimRules
import Foundation
import X509

/// Decides what a presented client certificate chain means for a connection.
///
/// The TLS layer accepts any certificate; this check decides afterwards, so a bad certificate is answered per
/// request with 403 `BadCertificate` and a sentence, instead of a bare TLS alert the user has to decode.
struct ProviderCertificateCheck: Sendable {
    /// The provider CA(s).
    var roots: [Certificate]
    var clock: WallClock

    /// - Parameter chain: leaf first, as TLS presents it.
    func authenticate(chain: [Certificate]) -> ConnectionAuth {
        guard let leaf = chain.first else { return .badCertificate("the client sent an empty certificate chain") }
        let now = clock.now()
        guard leaf.notValidBefore <= now else {
            return .badCertificate("the client certificate is not valid until \(leaf.notValidBefore)")
        }
        guard now <= leaf.notValidAfter else {
            return .badCertificate("the client certificate expired on \(leaf.notValidAfter)")
        }
        guard chainsToRoot(leaf, intermediates: Array(chain.dropFirst()), now: now) else {
            return .badCertificate("the client certificate (\(leaf.subject)) is not issued by the apnsim provider CA; use a certificate from Certs/ or from `apnsim certs`")
        }
        do {
            return .certificate(try ProviderCertificate(leaf))
        } catch {
            return .badCertificate("the client certificate's APNs topic extension cannot be read: \(error)")
        }
    }

    private func chainsToRoot(_ certificate: Certificate, intermediates: [Certificate], now: Date, depth: Int = 0) -> Bool {
        guard depth < 5 else { return false }
        for root in roots where root.subject == certificate.issuer {
            if root.publicKey.isValidSignature(certificate.signature, for: certificate) { return true }
        }
        for issuer in intermediates where issuer.subject == certificate.issuer && issuer != certificate {
            guard issuer.notValidBefore <= now, now <= issuer.notValidAfter,
                  issuer.publicKey.isValidSignature(certificate.signature, for: certificate) else { continue }
            if chainsToRoot(issuer, intermediates: intermediates, now: now, depth: depth + 1) { return true }
        }
        return false
    }
}
