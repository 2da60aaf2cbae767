import APNSimCore
import APNSimStore
import Foundation
import Logging

/// The shared, thread-safe parts every provider connection uses.
struct GatewayServices: Sendable {
    /// The devices, and the broadcast channels and activities subscribed to them (the router's).
    var directory: DeviceDirectory { router.directory }

    var validator: PushValidator
    var world: WorldRegistry
    var recorder: SendRecorder
    var clock: WallClock
    var policy: GatewayConfiguration.ConnectionPolicy
    var tokenSession: ProviderTokenSession.Configuration
    var faults: FaultInjector
    /// The open connections, for faults that act on all of them.
    var connections: ProviderConnections
    var router: PushRouter
    /// Set when the store is a file: accepted pushes are answered only once committed.
    var commits: CommitPoint?
    /// One trace per push, when a tracer is set (docs/tracing.md).
    var tracing: PushTracing
    /// Connections refused before HTTP/2 are counted here as they happen (the rest is counted from the record).
    var metrics: GatewayMetrics
    var logger: Logger
}
