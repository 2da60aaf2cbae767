// The names of a server-trust challenge, which swift-corelibs-foundation marks unavailable ("relies on the Darwin
// Security framework"), so an extension whose URLSession delegate handles one builds unchanged on Linux
// (docs/own-extensions.md, "On Linux"). Apple, "Performing manual server trust authentication",
// https://developer.apple.com/documentation/foundation/performing-manual-server-trust-authentication
//
// Where it differs from Apple's: Linux's URLSession checks a server's certificate itself (against the system's
// trusted roots) and never asks the delegate about server trust, so this code builds but is not called; a
// `SecTrust` here holds nothing, and the rest of the Security framework is absent.
#if !canImport(Darwin)
import Foundation
import FoundationNetworking

/// What Apple's `SecTrust` stands for: the certificates a server presented and the policy to check them by.
public final class SecTrust: @unchecked Sendable {
    init() {}
}

/// Apple's `CFError`, as an extension declares `var error: CFError?` for ``SecTrustEvaluateWithError(_:_:)``.
public typealias CFError = NSError

/// The authentication method of a server-trust challenge.
public let NSURLAuthenticationMethodServerTrust = "NSURLAuthenticationMethodServerTrust"

/// Whether `trust` is trusted; with nothing to check here, it is. Apple, "SecTrustEvaluateWithError",
/// https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    error?.pointee = nil
    return true
}

extension URLProtectionSpace {
    /// The server's trust in a server-trust challenge; never one here (Linux's URLSession issues none).
    public var serverTrust: SecTrust? { nil }
}

extension URLCredential {
    /// A credential that trusts the server, as a delegate answers a server-trust challenge.
    public convenience init(trust: SecTrust) {
        self.init(user: "", password: "", persistence: .none)
    }
}
#endif
