import Foundation
import NIOSSL

/// What a failed TLS handshake was, read from the error BoringSSL reported: the alert the client sent (it refused the
/// gateway's certificate: `unknown_ca`, `certificate_unknown`, `bad_certificate`), or what it sent instead of TLS.
struct TLSHandshakeFailure: Equatable {
    /// The alert as TLS names it (RFC 8446 §6), lower case; `nil` when the error names none.
    var alert: String?
    var explanation: String

    /// `nil` for an error that is not a failed handshake.
    /// - Parameter alert: the alert the client sent in the clear, if it did (``TLSAlertSniffer``): BoringSSL reports
    ///   a TLS 1.3 client's as a record it could not decrypt.
    init?(_ error: any Error, alert: String? = nil) {
        if let error = error as? NIOSSLError, case .uncleanShutdown = error { return nil }
        let text = String(describing: error)
        guard text.contains("handshakeFailed") || text.contains("SSL routines") else { return nil }
        if let alert = alert ?? Self.alert(in: text) {
            self.alert = alert
            switch alert {
            case "unknown_ca", "certificate_unknown", "bad_certificate":
                explanation = "the client refused the gateway's certificate (TLS alert \(alert)): it does not trust the root the "
                    + "gateway's chain ends in; give the client that root (Certs/ca.pem, unless --certs names another folder) to trust"
            default:
                explanation = "the client ended the TLS handshake with alert \(alert)"
            }
        } else if text.contains("EOF during handshake") {
            explanation = "the client closed the connection during the TLS handshake without an alert: most likely it does not trust "
                + "the gateway's certificate; give it the root the gateway's chain ends in (Certs/ca.pem, unless --certs names another folder)"
        } else if text.contains("HTTP_REQUEST") || text.contains("HTTPS_PROXY_REQUEST") {
            explanation = "the client spoke plain HTTP to a TLS port: use https:// (APNs takes TLS only)"
        } else if text.contains("WRONG_VERSION_NUMBER") || text.contains("UNSUPPORTED_PROTOCOL") {
            explanation = "the client sent something other than a TLS 1.2 or 1.3 ClientHello"
        } else if text.contains("NO_SHARED_CIPHER") || text.contains("NO_SHARED_GROUP") {
            explanation = "the client and the gateway share no TLS cipher suite or group"
        } else {
            explanation = "the TLS handshake failed: \(text)"
        }
    }

    /// `SSLV3_ALERT_UNKNOWN_CA` or `TLSV1_ALERT_UNKNOWN_CA` in BoringSSL's error text gives `unknown_ca`.
    private static func alert(in text: String) -> String? {
        for prefix in ["SSLV3_ALERT_", "TLSV1_ALERT_"] {
            guard let start = text.range(of: prefix)?.upperBound else { continue }
            let name = text[start...].prefix { $0.isUppercase || $0 == "_" || $0.isNumber }
            if !name.isEmpty { return name.lowercased() }
        }
        return nil
    }
}
