import Crypto
import Foundation

/// Issues device tokens the way apnsim's gateway hands them out: the same device, app, environment and
/// installation always get the same token, a reinstall (a new installation ID) gets a new one, and nothing
/// about the device can be read back from the token.
///
/// A token is HMAC-SHA256 over those four under the gateway's token secret: 32 bytes, the size iOS tokens
/// have today (Apple says never to rely on it). The gateway needs no table to give a device its token again,
/// and gateways with the same secret agree on every token.
public struct TokenIssuer: Sendable {
    private let key: SymmetricKey

    public static let defaultSecret = "apnsim sandbox token secret"

    public init(secret: String = TokenIssuer.defaultSecret) {
        key = SymmetricKey(data: Data(secret.utf8))
    }

    public func token(device: String, bundleID: String, environment: APNsEnvironment, installation: String) -> DeviceToken {
        let message = [device, bundleID, environment.rawValue, installation].joined(separator: "\u{1F}")
        let mac = HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)
        let hex = mac.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
        return DeviceToken(hex)!
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
