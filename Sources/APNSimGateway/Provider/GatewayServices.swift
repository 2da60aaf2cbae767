import APNSimCore
import APNSimStore
import Foundation

/// The shared, thread-safe parts every provider connection uses.
struct GatewayServices: Sendable {
    var validator: PushValidator
    var world: WorldRegistry
    var recorder: SendRecorder
    var clock: WallClock
    var policy: GatewayConfiguration.ConnectionPolicy
    var tokenSession: ProviderTokenSession.Configuration
    var faults: FaultInjector
    var router: PushRouter
}
