import Logging
import ServiceLifecycle

/// The gateway as a ServiceLifecycle service: it runs until its service group shuts down gracefully,
/// so Hummingbird and the provider connections close in order instead of being cancelled.
public struct GatewayService: Service {
    public let gateway: Gateway
    public let onReady: @Sendable (Gateway.Endpoints) async -> Void

    public init(gateway: Gateway, onReady: @escaping @Sendable (Gateway.Endpoints) async -> Void) {
        self.gateway = gateway
        self.onReady = onReady
    }

    public func run() async throws {
        try await gateway.run(onReady: onReady)
    }
}

extension Gateway {
    /// Starts the gateway, runs `body` with its endpoints, then shuts it down gracefully and waits for it.
    public func withRunning<T: Sendable>(_ body: @escaping @Sendable (Endpoints) async throws -> T) async throws -> T {
        let (ready, readySink) = AsyncStream.makeStream(of: Endpoints.self)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: GatewayService(gateway: self, onReady: { readySink.yield($0) }),
                             successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: logger
        ))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { readySink.finish() }
                try await group.run()
            }
            var iterator = ready.makeAsyncIterator()
            guard let endpoints = await iterator.next() else {
                try await tasks.waitForAll()
                throw GatewayError("the gateway stopped before it was ready")
            }
            let result: Result<T, any Error>
            do { result = .success(try await body(endpoints)) } catch { result = .failure(error) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}
