import APNSimGateway
import APNSimRules
import APNSimRuntime
import APNSimSandbox
import Foundation
import Logging

/// A whole simulated world in this process — the gateway over real TLS, the world's devices, the media server —
/// on ports the system picks, for a Swift test (Swift Testing or XCTest) of a provider's send-to-display flow.
///
/// ```swift
/// try await SimulatedWorld.run { world in
///     let token = try world.token(device: "iphone-dev", app: "com.example.app")
///     let apnsID = try await myProvider(world.provider).send(alert: "Shipped", to: token)
///     let delivery = try await world.delivery(apnsID: apnsID)
///     #expect(delivery.outcome == .displayed)
/// }
/// ```
public final class SimulatedWorld: Sendable {
    /// What a provider client needs to reach this world: URLs, the CA to trust, the signing key.
    public let provider: ProviderSettings
    /// `http://127.0.0.1:PORT` of the control API (its routes are under `/v1`), for clients in other languages.
    public let controlURL: String
    /// `http://127.0.0.1:PORT` of the media server rich pushes download from (`\(mediaURL)/media/sample.jpg`).
    public let mediaURL: String
    /// The gateway itself, for what this type does not wrap.
    public let gateway: Gateway
    private let running: Sandbox.Running
    private let clock: VirtualClock

    private init(running: Sandbox.Running, certs: String, clock: VirtualClock) {
        self.running = running
        self.clock = clock
        self.gateway = running.gateway
        self.controlURL = running.controlURL
        self.mediaURL = running.mediaURL ?? ""
        self.provider = ProviderSettings(ports: running.providerPorts, certs: certs)
    }

    /// Starts the world, runs `body` with it, then stops everything (also when `body` throws).
    public static func run<T: Sendable>(_ source: WorldSource = .sandbox, options: Options = Options(),
                                        _ body: @escaping @Sendable (SimulatedWorld) async throws -> T) async throws -> T {
        var configuration = Sandbox.Configuration(world: try source.load(), certs: options.certs)
        configuration.media = Sandbox.Media(directory: options.media, port: 0)
        configuration.useEphemeralPorts()
        configuration.registrationTimeout = options.registrationTimeout
        if let patience = options.patience { configuration.waitForSlowPeers(upTo: patience) }
        let clock = VirtualClock()
        configuration.virtualClock = clock
        let certs = options.certs
        let sandbox = try Sandbox(configuration, logger: options.logger)
        return try await sandbox.withRunning { running in
            guard running.unregistered.isEmpty else {
                throw SimulatedWorldError("devices \(running.unregisteredNames) did not register within \(options.registrationTimeout)")
            }
            return try await body(SimulatedWorld(running: running, certs: certs, clock: clock))
        }
    }

    /// The token the gateway gave `app` on `device`, as hex.
    public func token(device: String, app: String) throws -> String {
        guard let token = running.token(device: device, app: app) else {
            throw SimulatedWorldError("device \(device) has no token for \(app): the world declares no such device and app, or the device refused the app")
        }
        return token.hex
    }

    /// The devices the gateway knows, with their tokens.
    public var devices: [Gateway.DeviceStatus] { gateway.deviceStatus }

    /// Adds faults, as `POST /v1/faults` does (docs/faults.md); those that act at once have acted when it returns.
    @discardableResult
    public func inject(_ faults: Fault...) async throws -> [Fault] {
        try await gateway.inject(faults)
    }

    /// Moves the world's clock ahead (token ages, stored pushes' expiry, background budgets, fault windows see the
    /// time pass at once; extension budgets keep real time). A provider signing tokens should add
    /// ``clockOffset`` to its clock.
    public func advance(by duration: Duration) {
        clock.advance(by: duration.inSeconds)
        gateway.startDueActivities()
    }

    /// How far the world's clock is ahead of the system's, in seconds.
    public var clockOffset: TimeInterval { clock.offsetSeconds }

    /// Forgets every send, delivery and fault, as `POST /v1/reset` does; devices keep their tokens. Call it
    /// between tests that share one world.
    public func reset() async throws {
        try await gateway.reset()
    }
}

/// Where the world comes from.
public enum WorldSource: Sendable {
    /// apnsim's default world (`Scenarios/sandbox.yaml`): team `SIMTEAM001`, key `SIMKEY0001`, `com.example.app`
    /// with a service extension that picks the vendor by the payload, devices `iphone-dev` and `iphone-prod`.
    case sandbox
    /// A world file (docs/scenarios.md, "world").
    case file(String)
    /// A world built in code (start from `try WorldSource.sandbox.load()` and change it).
    case world(World)

    public func load() throws -> World {
        switch self {
        case .sandbox: return try WorldFile.load(path: APNSimFiles.root.appendingPathComponent("Scenarios/sandbox.yaml").path)
        case .file(let path): return try WorldFile.load(path: path)
        case .world(let world): return world
        }
    }
}

extension SimulatedWorld {
    public struct Options: Sendable {
        /// The folder with the gateway's and devices' certificates, the CA and the team's .p8; apnsim's own `Certs`.
        public var certs = APNSimFiles.root.appendingPathComponent("Certs").path
        /// The folder the media server serves; apnsim's fixtures (`sample.jpg`, `sample.gif`, `sample.mp4`…).
        public var media = APNSimFiles.root.appendingPathComponent("Scenarios/media").path
        /// How long the world waits for its devices to register, a Swift extension's first build included.
        public var registrationTimeout: Duration = .seconds(120)
        /// How long the world waits for a peer that is slow only because the machine is busy: a provider's TLS
        /// handshake and HTTP/2 preface, a device's connect, the device links' heartbeats. Ten minutes, so how fast
        /// the machine running the tests is decides no verdict. `nil` keeps the gateway's own (10 s for a handshake,
        /// as `apnsim up` has), for a test of how a provider fares with those.
        public var patience: Duration? = .seconds(600)
        /// The world's logs; warnings and worse unless changed.
        public var logger: Logger = {
            var logger = Logger(label: "apnsim.testing")
            logger.logLevel = .warning
            return logger
        }()

        public init() {}
    }
}

public struct SimulatedWorldError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// apnsim's own files (certificates, the sandbox world, media fixtures), found from this source file: they are
/// there whether apnsim is a path dependency or a checkout SwiftPM made.
enum APNSimFiles {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
