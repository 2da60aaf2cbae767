import APNSimRules
import APNSimStore
import Foundation
import Logging

/// The shared, thread-safe parts every provider connection uses. A class: a connection reads it a few dozen times a
/// push, and a struct of thirteen fields was copied, each reference retained and released, at every read.
final class GatewayServices: Sendable {
    /// The devices, and the broadcast channels and activities subscribed to them (the router's).
    var directory: DeviceDirectory { router.directory }

    let validator: PushValidator
    let world: WorldRegistry
    let recorder: SendRecorder
    /// The connections refused or closed (``ProviderConnection/recordConnection(_:reason:errorCode:lastStreamID:tlsAlert:fault:explanation:)``).
    let connectionRecords: ConnectionRecorder
    let clock: WallClock
    let policy: GatewayConfiguration.ConnectionPolicy
    let tokenSession: ProviderTokenSession.Configuration
    let faults: FaultInjector
    /// The open connections, for faults that act on all of them.
    let connections: ProviderConnections
    let router: PushRouter
    /// Set when the store is a file: accepted pushes are answered only once committed.
    let commits: CommitPoint?
    /// Set when the store is on a server (PostgreSQL): while it cannot take writes, pushes are answered 503.
    let storeHealth: StoreHealth?
    /// Set when replicas share the store: a token another replica registered is read from it (docs/cluster.md).
    let replicas: ReplicaLinks?
    /// One trace per push, when a tracer is set (docs/tracing.md).
    let tracing: PushTracing
    /// Connections refused before HTTP/2 are counted here as they happen (the rest is counted from the record).
    let metrics: GatewayMetrics
    let logger: Logger

    init(validator: PushValidator, world: WorldRegistry, recorder: SendRecorder, connectionRecords: ConnectionRecorder, clock: WallClock,
         policy: GatewayConfiguration.ConnectionPolicy, tokenSession: ProviderTokenSession.Configuration, faults: FaultInjector,
         connections: ProviderConnections, router: PushRouter, commits: CommitPoint?, storeHealth: StoreHealth? = nil,
         replicas: ReplicaLinks? = nil, tracing: PushTracing, metrics: GatewayMetrics, logger: Logger) {
        self.validator = validator
        self.world = world
        self.recorder = recorder
        self.connectionRecords = connectionRecords
        self.clock = clock
        self.policy = policy
        self.tokenSession = tokenSession
        self.faults = faults
        self.connections = connections
        self.router = router
        self.commits = commits
        self.storeHealth = storeHealth
        self.replicas = replicas
        self.tracing = tracing
        self.metrics = metrics
        self.logger = logger
    }
}
