import AsyncHTTPClient
import NIOCore

extension HTTPClient {
    /// The client tests talk HTTP through: like async-http-client's shared one, but its read timeout is the hang
    /// guard, not 90 s. A request that waits on a device's answer (an install while a Swift extension builds) sends no
    /// byte for as long as that takes on a busy machine; `HTTPClient.shared` answered `readTimeout` there.
    public static let forTests = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: .init(timeout: .init(connect: .seconds(60), read: .seconds(HangGuard.limit.components.seconds))))
}

extension HangGuard {
    /// ``limit`` as a request's deadline.
    public static var deadline: TimeAmount { .seconds(limit.components.seconds) }
}
