import Foundation

/// base64url without padding (RFC 7515 §2), as JWTs use it.
public enum Base64URL {
    /// Decodes unpadded base64url (RFC 7515 §2); tolerates padding too.
    public static func decode(_ text: Substring) -> Data? {
        var base64 = String(text).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }

    public static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
