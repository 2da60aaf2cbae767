import Hummingbird
import Synchronization

/// A request whose path is a route's but whose method is none of that route's gets 405 with `Allow` naming the
/// methods it takes (RFC 9110, 15.5.6), not the 404 of a path that does not exist.
final class MethodCheck: RouterMiddleware, Sendable {
    typealias Context = BasicRequestContext

    /// Each route's path segments (`{id}` for a parameter) and method, once every route is added.
    private let routes = Mutex<[(segments: [String], method: HTTPRequest.Method)]>([])

    func set(_ described: [Router<Context>.RouteDescription]) {
        routes.withLock { $0 = described.map { (Self.segments($0.path.description), $0.method) } }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // A matched route (endpointPath set) took the method; only the not-found answer is looked at.
        guard context.endpointPath == nil else { return try await next(request, context) }
        let path = Self.segments(request.uri.path)
        let allowed = routes.withLock { routes in
            routes.filter { Self.matches($0.segments, path) }.map(\.method.rawValue)
        }
        guard !allowed.isEmpty else { return try await next(request, context) }
        var response = ControlJSON.error("\(request.method.rawValue) is not a method of \(request.uri.path); it takes \(allowed.joined(separator: ", "))",
                                         status: .methodNotAllowed)
        response.headers[.allow] = allowed.joined(separator: ", ")
        return response
    }

    private static func segments(_ path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    private static func matches(_ pattern: [String], _ path: [String]) -> Bool {
        pattern.count == path.count && zip(pattern, path).allSatisfy { $0.hasPrefix("{") || $0.hasPrefix(":") || $0 == $1 }
    }
}
