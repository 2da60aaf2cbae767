import Crypto
import Foundation

/// A provider authentication token (JWT) as APNs reads it (Apple, "Establishing a token-based connection to APNs").
///
/// Lenient where real clients differ and APNs accepts: the signature may be raw `r‖s` (64 bytes, JWS) or DER
/// (openssl, Java); `iat` may be a number or a string of digits; extra header fields, extra claims and
/// whitespace in the JSON are ignored.
public struct ProviderToken: Sendable, Hashable {
    /// The compact form as sent after `bearer `.
    public let compact: String
    public let algorithm: String
    public let keyID: String
    public let teamID: String
    public let issuedAt: Date
    private let signingInput: Data
    private let signature: Data

    /// Parses a compact JWS. The error is a sentence saying what is wrong.
    public static func parse(_ compact: String) -> Result<ProviderToken, ParseError> {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(.init("a JWT has three base64url parts separated by dots; this one has \(parts.count)"))
        }
        guard let headerData = Base64URL.decode(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerData) else {
            return .failure(.init("the JWT header is not base64url-encoded JSON"))
        }
        guard let claimsData = Base64URL.decode(parts[1]),
              let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else {
            return .failure(.init("the JWT claims are not base64url-encoded JSON with \"iss\" a string and \"iat\" a number or a string of digits"))
        }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            return .failure(.init("the JWT has no signature"))
        }
        guard let algorithm = header.alg else {
            return .failure(.init("the JWT header has no \"alg\""))
        }
        guard let keyID = header.kid, !keyID.isEmpty else {
            return .failure(.init("the JWT header has no \"kid\" (your 10-character Key ID)"))
        }
        guard let teamID = claims.iss, !teamID.isEmpty else {
            return .failure(.init("the JWT claims have no \"iss\" (your 10-character Team ID)"))
        }
        guard let iat = claims.iat else {
            return .failure(.init("the JWT claims have no \"iat\" in epoch seconds (a number, or a string of digits)"))
        }
        guard let seconds = iat.seconds, EpochSeconds.range.contains(seconds) else {
            return .failure(.init("the JWT's iat \(iat.text) is not a time: APNs wants epoch seconds, a whole number from 0 to \(Int64(EpochSeconds.range.upperBound)) (the years 1970 to 9999)"))
        }
        let issuedAt = Date(timeIntervalSince1970: seconds)
        let input = Data(compact.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        return .success(ProviderToken(compact: compact, algorithm: algorithm, keyID: keyID, teamID: teamID,
                                      issuedAt: issuedAt, signingInput: input, signature: signature))
    }

    /// Whether the signature is a valid ES256 signature by `key`, in raw or DER form.
    public func isSignatureValid(for key: P256.Signing.PublicKey) -> Bool {
        let ecdsa: P256.Signing.ECDSASignature?
        if signature.count == 64 {
            ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
        } else {
            ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature)
        }
        guard let ecdsa else { return false }
        return key.isValidSignature(ecdsa, for: signingInput)
    }

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private struct Claims: Decodable {
        var iss: String?
        var iat: EpochSeconds?
    }

    /// `iat` as a JSON number or, as APNSwift sends it, a string of digits.
    ///
    /// Apple says only "epoch seconds". apnsim accepts a finite number (fractions allowed: some JWT libraries send
    /// them) or a string of ASCII digits, within ``range``; anything else (`1e19`, `-1e300`, `"inf"`, `"nan"`, a
    /// negative time) makes the token `InvalidProviderToken`, with the value in the explanation. A time within
    /// the range but over an hour old stays `ExpiredProviderToken`.
    struct EpochSeconds: Decodable {
        /// 1970-01-01 to 9999-12-31T23:59:59Z.
        static let range: ClosedRange<Double> = 0...253_402_300_799

        /// The value, when it is a finite number or a string of digits.
        var seconds: Double?
        /// The value as it was sent, for the explanation.
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) {
                seconds = number.isFinite ? number : nil
                text = "\(number)"
            } else if let string = try? container.decode(String.self) {
                let digits = string.trimmingSpacesAndTabs
                let allDigits = !digits.isEmpty && digits.utf8.count <= 20 && digits.utf8.allSatisfy { (0x30...0x39).contains($0) }
                seconds = allDigits ? Double(digits) : nil
                text = "\"\(string.prefix(40))\""
            } else {
                seconds = nil
                text = "(neither a number nor a string)"
            }
        }
    }

    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
