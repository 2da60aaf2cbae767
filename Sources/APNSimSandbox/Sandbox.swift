import APNSimRules
import APNSimExtensions
import APNSimGateway
import APNSimInbox
import APNSimStore
import Foundation
import Logging
import ServiceLifecycle

/// One whole simulated world running: the gateway, the media server rich pushes download from, and the world's
/// devices, in this process or each in its own `apnsim device` process. `apnsim up`, `apnsim replay` and
/// APNSimTesting all start worlds through it.
///
/// ```swift
/// var configuration = Sandbox.Configuration(world: try WorldFile.load(path: "Scenarios/sandbox.yaml"), certs: "Certs")
/// configuration.useEphemeralPorts()
/// try await Sandbox(configuration).withRunning { sandbox in
///     print(sandbox.token(device: "iphone-dev", app: "com.example.app")!)
/// }
/// ```
public final class Sandbox: Service, Sendable {
    public let configuration: Configuration
    public let gateway: Gateway
    private let logger: Logger
    /// The inbox's composer, when the sandbox serves its own inbox.
    private let composer: SandboxComposer?

    /// - Parameter store: where the record goes; in memory unless given.
    public init(_ configuration: Configuration, store: (any Store)? = nil, logger: Logger = Logger(label: "apnsim.sandbox")) throws {
        self.configuration = configuration
        self.logger = logger
        var gatewayConfiguration = configuration.gateway
        // GET /readyz answers ready once the world's devices, which the sandbox starts, are linked and registered.
        gatewayConfiguration.readyDevices = configuration.world.devices
        // The inbox on the control port, its composer signing with the sandbox's key, unless the configuration
        // brought what its control port serves.
        if gatewayConfiguration.additions.isEmpty {
            let composer = SandboxComposer(certs: configuration.certs, world: configuration.world, clock: gatewayConfiguration.clock,
                                           mediaDirectory: configuration.media?.directory)
            gatewayConfiguration.additions = [try Inbox(attachmentCopies: configuration.dataDirectory.map { "\($0)/gateway/attachments" },
                                                        composer: composer.composer)]
            self.composer = composer
        } else {
            self.composer = nil
        }
        self.gateway = try Gateway(configuration: gatewayConfiguration, world: WorldRegistry(configuration.world),
                                   store: try store ?? SQLiteStore(), logger: logger)
    }

    /// Runs until a graceful shutdown of the service group it is in (as `apnsim up` runs it).
    public func run() async throws {
        try await run(onReady: { _ in })
    }

    /// Runs until a graceful shutdown; `onReady` runs once every listener is bound and every declared device is
    /// registered (or ``Configuration/registrationTimeout`` passed; ``Running/unregistered`` says which were not).
    public func run(onReady: @escaping @Sendable (Running) async -> Void) async throws {
        let (gatewayReady, gatewaySink) = AsyncStream.makeStream(of: Gateway.Endpoints.self)
        let (mediaReady, mediaSink) = AsyncStream.makeStream(of: Int.self)
        let configuration = configuration
        let gateway = gateway
        let logger = logger
        let composer = composer
        try await withThrowingDiscardingTaskGroup { tasks in
            if let media = configuration.media {
                var server = MediaServer(directory: URL(fileURLWithPath: media.directory), host: media.host, port: media.port,
                                         logger: logger)
                server.onReady = { mediaSink.yield($0); mediaSink.finish() }
                tasks.addTask { try await server.run() }
            } else {
                mediaSink.finish()
            }
            tasks.addTask {
                defer { gatewaySink.finish() }
                try await gateway.run(onReady: { gatewaySink.yield($0) })
            }
            tasks.addTask {
                guard let endpoints = await gatewayReady.first(where: { _ in true }) else { return }
                let mediaPort = await mediaReady.first(where: { _ in true })
                let mediaURL = mediaPort.map { "http://\(configuration.media?.host ?? "127.0.0.1"):\($0)" }
                composer?.media(at: mediaURL)
                // An app's forward URL may name this media server as `${media}` (its `…/media`), as payloads do:
                // `${media}/echo` answers each response with its own body.
                var devicesConfiguration = configuration
                if let mediaURL {
                    for (bundleID, app) in configuration.world.apps {
                        devicesConfiguration.world.apps[bundleID]?.responses?.forward = app.responses?.forward?
                            .replacingOccurrences(of: "${media}", with: "\(mediaURL)/media")
                    }
                }
                let configuration = devicesConfiguration
                let devices = SandboxDevices(configuration: configuration, devicePort: endpoints.devicePort ?? 0, logger: logger)
                try await devices.run(gateway: gateway) { unregistered in
                    await onReady(Running(gateway: gateway, endpoints: endpoints, mediaURL: mediaURL, certs: configuration.certs,
                                          unregistered: unregistered))
                }
            }
        }
    }

    /// Starts the world, runs `body` with it, then stops everything and waits for it.
    public func withRunning<T: Sendable>(_ body: @escaping @Sendable (Running) async throws -> T) async throws -> T {
        let (ready, readySink) = AsyncStream.makeStream(of: Running.self)
        let service = service(onReady: { readySink.yield($0) })
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                defer { readySink.finish() }
                try await group.run()
            }
            guard let running = await ready.first(where: { _ in true }) else {
                try await tasks.waitForAll()
                throw SandboxError("the sandbox stopped before it was ready")
            }
            let result: Result<T, any Error>
            do { result = .success(try await body(running)) } catch { result = .failure(error) }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            return try result.get()
        }
    }
}

extension Sandbox {
    /// The sandbox as a service of a group, calling `onReady` once it is up (``run(onReady:)``): `apnsim up` runs
    /// it beside its signal handling, ``withRunning(_:)`` in a group of its own.
    public func service(onReady: @escaping @Sendable (Running) async -> Void) -> some Service {
        ReadyReporting(sandbox: self, onReady: onReady)
    }
}

private struct ReadyReporting: Service {
    let sandbox: Sandbox
    let onReady: @Sendable (Sandbox.Running) async -> Void

    func run() async throws {
        try await sandbox.run(onReady: onReady)
    }
}

public struct SandboxError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
