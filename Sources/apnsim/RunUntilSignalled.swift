import APNSimGateway
import Logging
import ServiceLifecycle
import UnixSignals

/// Runs the gateway in a service group that Ctrl-C (SIGINT) or SIGTERM shuts down gracefully;
/// `ready` runs once it listens.
func runUntilSignalled(_ gateway: Gateway, logger: Logger,
                       ready: @escaping @Sendable (Gateway.Endpoints) async -> Void) async throws {
    let group = ServiceGroup(configuration: .init(
        services: [.init(service: GatewayService(gateway: gateway, onReady: ready),
                         successTerminationBehavior: .gracefullyShutdownGroup)],
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
    ))
    try await group.run()
}
