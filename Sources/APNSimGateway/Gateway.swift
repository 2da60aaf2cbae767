import APNSimDeviceLink
import APNSimRules
import APNSimStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle
import Tracing

/// apnsim's fake APNs: one provider endpoint per environment, the recorder behind them, and the control API.
///
/// ```swift
/// let gateway = try Gateway(configuration: configuration, world: WorldRegistry(world), store: SQLiteStore())
/// try await gateway.withRunning { endpoints in
///     print(endpoints.providerPorts[.development]!)
/// }
/// ```
public final class Gateway: Service, Sendable {
    /// Where a running gateway listens (useful when the configuration asked for port 0).
    public struct Endpoints: Sendable, Hashable {
        public var host: String
        public var providerPorts: [APNsEnvironment: Int]
        /// The channel management API's ports (Apple's 2195 and 2196).
        public var managementPorts: [APNsEnvironment: Int]
        public var controlPort: Int
        /// The device link's port, `nil` when it is off.
        public var devicePort: Int?
    }

    public let configuration: GatewayConfiguration
    public let world: WorldRegistry
    public let store: any Store
    public let recorder: SendRecorder
    /// Provider connections the gateway refused or closed (`GET /v1/connections`, docs/records.md).
    public let connectionRecords: ConnectionRecorder
    /// Server-side failures queued for upcoming pushes (`POST /v1/faults`).
    public let faults = FaultInjector()
    /// The open provider connections, for faults that act on all of them.
    let connections = ProviderConnections()
    let actions: GatewayActions
    /// Tells the control API's event streams the gateway is shutting down.
    let stopping = StopSignal()
    let tracing: PushTracing
    let metrics: GatewayMetrics
    /// Delivery records: what happened to pushes routed to simulated devices.
    public let deliveries: DeliveryRecorder
    let devices: DeviceDirectory
    let requests = DeviceRequests()
    /// Set when the store is shared with other replicas (docs/cluster.md).
    let replicaLinks: ReplicaLinks?
    private let tls: TLSMaterial
    let logger: Logger

    public init(configuration: GatewayConfiguration, world: WorldRegistry, store: any Store,
                logger: Logger = Logger(label: "apnsim.gateway")) throws {
        self.configuration = configuration
        self.world = world
        self.store = store
        // One signal for both records, so the inbox's event stream wakes for a send or a delivery alike.
        let changes = ChangeSignal()
        let metrics = GatewayMetrics()
        self.metrics = metrics
        let tracing = PushTracing(tracer: configuration.tracer ?? (InstrumentationSystem.tracer is NoOpTracer ? nil : InstrumentationSystem.tracer),
                                  logger: logger)
        self.tracing = tracing
        self.recorder = SendRecorder(store: store, limits: configuration.records, clock: configuration.clock, changes: changes,
                                         observe: { metrics.count($0) })
        let connectionRecords = ConnectionRecorder(store: store, limits: configuration.records, clock: configuration.clock, changes: changes)
        self.connectionRecords = connectionRecords
        let deliveries = DeliveryRecorder(store: store, limits: configuration.records, clock: configuration.clock,
                                              changes: changes, observe: { batch in
                                                  metrics.count(batch)
                                                  tracing.delivered(batch.events)
                                              })
        self.deliveries = deliveries
        self.devices = DeviceDirectory(registry: world, persist: { deliveries.record(contentsOf: $0) }, changes: changes)
        devices.recordRestartState(store.isDurable)
        if let shared = store as? any ReplicaStore {
            let name = configuration.replica ?? ReplicaLinks.defaultName
            guard !name.isEmpty, !name.contains(where: \.isWhitespace) else {
                throw GatewayError("the replica name '\(name)' is not one: give each replica a name without spaces (--replica)")
            }
            shared.join(as: name)
            devices.join(as: name)
            let counters: [ReplicaEvent.RecordKind: ChangeCounter] = [.sends: recorder.batches, .deliveries: deliveries.batches,
                                                                      .connections: connectionRecords.batches]
            replicaLinks = ReplicaLinks(name: name, store: shared, directory: devices, clock: configuration.clock,
                                        recorded: { kind in counters[kind]?.bump() }, logger: logger)
        } else {
            replicaLinks = nil
        }
        // The store going away or coming back changes what /readyz says: `GET /v1/events` tells it as a devices event.
        store.health?.onChange { [devices] in devices.revisions.bump() }
        self.actions = GatewayActions(world: world, faults: faults, connections: connections, devices: devices, recorder: recorder,
                                      connectionRecords: connectionRecords,
                                      deliveries: deliveries, clock: configuration.clock, requests: requests,
                                      store: store, metrics: metrics)
        self.tls = try TLSMaterial(configuration.tls)
        self.logger = logger
    }

    /// Serves until the task is cancelled or a graceful shutdown begins (as a `Service` in a `ServiceGroup`).
    public func run() async throws {
        try await run(onReady: { _ in })
    }

    /// Serves until the task is cancelled or a graceful shutdown begins; `onReady` runs once every listener is bound.
    public func run(onReady: @escaping @Sendable (Endpoints) async -> Void) async throws {
        if !ControlAccess.isLoopback(configuration.controlHost), configuration.controlToken == nil {
            throw GatewayError("the control API would listen on \(configuration.controlHost) for anyone who can reach it: "
                               + "give it a token (--control-token) or keep it on 127.0.0.1")
        }
        // What a previous run left in the store: registrations (and so their tokens) and held pushes.
        devices.restore(try await store.deviceState())
        let group = MultiThreadedEventLoopGroup.singleton
        let quiesce = ServerQuiescingHelper(group: group)
        let commits = store.isDurable && configuration.durableAnswers ? CommitPoint(sends: recorder, deliveries: deliveries) : nil
        let services = GatewayServices(
            validator: PushValidator(configuration: configuration.validator), world: world, recorder: recorder,
            connectionRecords: connectionRecords,
            clock: configuration.clock, policy: configuration.connection, tokenSession: configuration.tokenSession,
            faults: faults, connections: connections,
            router: PushRouter(directory: devices, faults: faults, clock: configuration.clock),
            commits: commits, storeHealth: store.health, replicas: replicaLinks, tracing: tracing, metrics: metrics, logger: logger)
        let certificateCheck = ProviderCertificateCheck(roots: tls.providerRoots, clock: configuration.clock)

        var ports: [APNsEnvironment: Int] = [:]
        for environment in APNsEnvironment.allCases {
            guard let port = configuration.ports[environment] else { continue }
            let endpoint = ProviderEndpoint(environment: environment, services: services, sslContext: tls.sslContext,
                                            certificateCheck: certificateCheck)
            do {
                let channel = try await endpoint.bind(host: configuration.host, port: port, group: group, quiesce: quiesce)
                ports[environment] = channel.localAddress?.port ?? port
            } catch {
                quiesce.initiateShutdown(promise: nil)
                throw GatewayError("cannot listen for \(environment) providers on \(configuration.host):\(port): \(error)")
            }
        }
        var managementPorts: [APNsEnvironment: Int] = [:]
        for environment in APNsEnvironment.allCases {
            guard let port = configuration.managementPorts[environment] else { continue }
            let endpoint = ProviderEndpoint(environment: environment, role: .management, services: services, sslContext: tls.sslContext,
                                            certificateCheck: certificateCheck)
            do {
                let channel = try await endpoint.bind(host: configuration.host, port: port, group: group, quiesce: quiesce)
                managementPorts[environment] = channel.localAddress?.port ?? port
            } catch {
                quiesce.initiateShutdown(promise: nil)
                throw GatewayError("cannot listen for \(environment) channel management on \(configuration.host):\(port): \(error)")
            }
        }
        logger.info("provider endpoints listening", metadata: ["ports": "\(ports)", "channel management": "\(managementPorts)"])

        var devicePort: Int?
        if let port = configuration.devicePort {
            let deviceServices = DeviceServices(directory: devices, tokens: TokenIssuer(secret: configuration.tokenSecret),
                                                clock: configuration.clock,
                                                heartbeatInterval: configuration.heartbeatInterval,
                                                uninstallDelay: configuration.uninstallDelay, requests: requests,
                                                summarized: { [actions] in actions.summarized($0) },
                                                additions: configuration.additions,
                                                bufferLimit: configuration.deviceLinkBufferLimit,
                                                registrationCommits: store.isShared ? commits : nil, logger: logger)
            do {
                let channel = try await DeviceLinkEndpoint(services: deviceServices, sslContext: tls.deviceSSLContext)
                    .bind(host: configuration.host, port: port, group: group, quiesce: quiesce)
                devicePort = channel.localAddress?.port ?? port
            } catch {
                quiesce.initiateShutdown(promise: nil)
                throw GatewayError("cannot listen for devices on \(configuration.host):\(port): \(error)")
            }
        }

        var control = ControlAPI(actions: actions, store: store, providerPorts: ports, requests: requests,
                                 uninstallDelay: configuration.uninstallDelay, virtualClock: configuration.virtualClock,
                                 stopping: stopping, additions: configuration.additions)
        control.managementPorts = managementPorts
        control.installWait = configuration.installWait
        control.readyDevices = configuration.readyDevices
        control.forwarding = replicaLinks.map { ReplicaForwarding(links: $0, addresses: ReplicaAddresses(store: $0.store)) }
        let (controlPorts, controlPortSink) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: control.makeRouter(token: configuration.controlToken),
            configuration: .init(address: .hostname(configuration.controlHost, port: configuration.controlPort),
                                 serverName: "apnsim"),
            onServerRunning: { channel in
                controlPortSink.yield(channel.localAddress?.port ?? 0)
                controlPortSink.finish()
            },
            eventLoopGroupProvider: .shared(group),
            logger: logger
        )

        let host = configuration.host
        let boundPorts = ports, boundManagementPorts = managementPorts
        let boundDevicePort = devicePort
        defer { for addition in configuration.additions { addition.gatewayStopped() } }
        // Hears the other replicas until the gateway stops (its stream ends only with the store).
        let listening = replicaLinks.map { links in Task { await links.run() } }
        defer { listening?.cancel() }
        // Scheduled Live Activities start on the world's clock: looked at every second, and when a virtual clock moves.
        let ticking = Task { [devices, clock = configuration.clock] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                devices.startScheduled(now: clock.now())
            }
        }
        defer { ticking.cancel() }
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask { await self.recorder.run() }
            tasks.addTask { await self.connectionRecords.run() }
            tasks.addTask { await self.deliveries.run() }
            if let commits { tasks.addTask { await commits.run() } }
            let controlGroup = ServiceGroup(configuration: .init(services: [app], logger: logger))
            tasks.addTask { try await controlGroup.run() }
            tasks.addTask {
                var iterator = controlPorts.makeAsyncIterator()
                guard let controlPort = await iterator.next() else { return }
                if let links = self.replicaLinks {
                    // Before the gateway says it is ready: the others send it their requests about its devices.
                    let address = self.configuration.replicaAddress ?? Self.controlAddress(host: self.configuration.controlHost, port: controlPort)
                    do {
                        try await links.store.announce(control: address, at: self.configuration.clock.now())
                    } catch {
                        self.logger.error("cannot tell the other replicas where this one's control API is", metadata: ["error": "\(error)"])
                    }
                }
                await onReady(Endpoints(host: host, providerPorts: boundPorts, managementPorts: boundManagementPorts, controlPort: controlPort, devicePort: boundDevicePort))
            }
            // Wait for shutdown (graceful or cancellation), then let connections go with GOAWAY {"reason":"Shutdown"}.
            try? await gracefulShutdown()
            stopping.set()
            let done = group.next().makePromise(of: Void.self)
            quiesce.initiateShutdown(promise: done)
            try? await done.futureResult.get()
            commits?.finish()
            recorder.finish()
            connectionRecords.finish()
            deliveries.finish()
            await controlGroup.triggerGracefulShutdown()
        }
    }
}

extension Gateway {
    /// Where the other replicas reach a control API listening on `host`: the host's name when it listens on every address.
    static func controlAddress(host: String, port: Int) -> String {
        let reachable = host == "0.0.0.0" || host == "::" || host == "[::]" ? ProcessInfo.processInfo.hostName : host
        return "http://\(reachable.contains(":") && !reachable.hasPrefix("[") ? "[\(reachable)]" : reachable):\(port)"
    }

    /// Adds faults as `POST /v1/faults` does, and lets those that act at once act before returning (docs/faults.md).
    @discardableResult
    public func inject(_ faults: [Fault]) async throws(FaultInjector.FaultError) -> [Fault] {
        try await actions.inject(faults)
    }

    /// Forgets what happened, as `POST /v1/reset` does: sends, deliveries, faults, held pushes, changes to the world.
    public func reset() async throws {
        try await actions.reset()
    }
}

extension Gateway {
    /// A device the gateway has heard from, with the tokens its apps registered.
    public struct DeviceStatus: Sendable, Hashable {
        public var descriptor: DeviceDescriptor
        public var online: Bool
        public var tokens: [RegisteredApp]
    }

    /// The IDs of the devices of `specs` not yet linked with each app of their spec registered.
    public func unregistered(_ specs: [World.DeviceSpec]) -> [String] {
        DeviceDirectory.unregistered(specs, in: devices.devices)
    }

    public var deviceStatus: [DeviceStatus] {
        devices.devices.map { device in
            DeviceStatus(descriptor: device.descriptor, online: device.session != nil,
                         tokens: device.apps)
        }
    }
}

extension Gateway {
    /// Every device's Live Activities, with the device's ID, as `GET /v1/activities` lists them.
    public var activities: [(device: String, activity: LiveActivity)] { devices.activities() }

    /// Starts the scheduled Live Activities due on the gateway's clock now, as it does every second: for a caller that has
    /// just moved a virtual clock (`POST /v1/clock` does it too).
    public func startDueActivities() {
        devices.startScheduled(now: configuration.clock.now())
    }

    /// An app on `device` starts a Live Activity, as `Activity.request` does (`POST /v1/devices/{id}/activities`):
    /// returns it with its push token, or throws a sentence saying why not (a device not connected, an app not
    /// installed, a type or state the world's app does not declare).
    /// With `channel`, it subscribes to that broadcast channel of the app instead of getting a push token.
    public func startActivity(device: String, app: String, type: String, attributes: [String: JSONValue],
                              contentState: [String: JSONValue], channel: String? = nil, start: Date? = nil) throws -> LiveActivity {
        try actions.startActivity(device: device, bundleID: app, type: type, attributes: attributes, contentState: contentState,
                                  channel: channel, start: start).get()
    }
}

extension Gateway {
    /// The user taps the notification push `apnsID` showed on `device`, or presses its button `action` (with `text`
    /// for a text-input action), as `POST /v1/devices/{id}/tap` does: returns the interaction record, or throws a
    /// sentence saying why nothing happened (docs/interactions.md).
    public func tap(device: String, apnsID: String, action: String? = nil, text: String? = nil) async throws -> InteractionRecord {
        try await actions.interact(device: device, apnsID: apnsID, action: action ?? InteractionRecord.defaultAction, text: text).get()
    }

    /// The user dismisses the notification push `apnsID` showed on `device` (`POST /v1/devices/{id}/dismiss`).
    public func dismiss(device: String, apnsID: String) async throws -> InteractionRecord {
        try await actions.interact(device: device, apnsID: apnsID, action: InteractionRecord.dismissAction, text: nil).get()
    }

    /// The user turns `focus` on `device` on, or off with `nil` (`POST`/`DELETE /v1/devices/{id}/focus`); throws a
    /// sentence when the device is not connected.
    public func setFocus(_ focus: Focus?, device: String) throws(GatewayError) {
        if let problem = actions.setFocus(focus, device: device) { throw GatewayError(problem) }
    }

    /// The user sets `summary` on `device`, or turns it off with `nil` (`POST`/`DELETE /v1/devices/{id}/summary`);
    /// throws a sentence when it is not one iOS would set, or the device is not connected.
    public func setSummary(_ summary: ScheduledSummary?, device: String) throws(GatewayError) {
        if let problem = summary?.problems.first ?? actions.setSummary(summary, device: device) { throw GatewayError(problem) }
    }

    /// `device` delivers its Scheduled Summary now (`POST /v1/devices/{id}/summary/deliver`): what it delivered, in order.
    public func deliverSummary(device: String) async throws -> SummaryDelivery {
        try await actions.deliverSummary(device: device).get()
    }
}
