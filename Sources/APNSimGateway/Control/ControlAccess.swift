import Crypto
import Foundation
import Hummingbird

/// Who may use the control API. It changes the world and reads every push, so it listens on loopback unless told
/// otherwise, and anywhere else only with a token: `--control-token`, sent as `Authorization: Bearer <token>`. The
/// health probes (`/healthz`, `/readyz`) and the API's description (`/v1/openapi.json`) need none: they say nothing
/// about what the gateway holds.
struct ControlAccess: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// The paths anyone may read: the probes and the API's description.
    static let openPaths = ControlAPI.probePaths.union(ControlAPI.descriptionPaths)

    /// The SHA-256 of the token, so requests are compared in constant time whatever their length.
    private let tokenDigest: SHA256.Digest

    init(token: String) {
        tokenDigest = SHA256.hash(data: Data(token.utf8))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.openPaths.contains(request.uri.path) { return try await next(request, context) }
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else {
            return ControlJSON.error("the control API needs the header Authorization: Bearer <the gateway's --control-token>",
                                     status: .unauthorized)
        }
        let sent = SHA256.hash(data: Data(authorization.dropFirst(7).trimmingCharacters(in: .whitespaces).utf8))
        guard sent == tokenDigest else {
            return ControlJSON.error("the bearer token is not this gateway's --control-token", status: .unauthorized)
        }
        return try await next(request, context)
    }

    /// Whether `host` is a loopback address (or name), where the control API may listen without a token.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
