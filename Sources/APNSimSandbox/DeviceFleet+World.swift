import APNSimDevice
import APNSimRules
import Foundation

extension DeviceFleet {
    /// A world file's declared device as a fleet, linking to `gateway`: its apps as the world declares them, its data
    /// in `data`; `links` and `connectTimeout` when the sandbox sets them, the fleet's defaults when not.
    init(_ spec: World.DeviceSpec, world: World, gateway: Gateway, data: String, links: Int?, connectTimeout: Duration?) {
        self.init()
        id = spec.id
        name = spec.name
        count = spec.count ?? 1
        if let model = spec.model { self.model = model }
        if let os = spec.os { self.os = os }
        gateways = [gateway]
        apps = spec.apps.map { App(bundleID: $0.bundleID, environment: $0.environment, alerts: $0.alerts != false, declared: world.apps[$0.bundleID]) }
        self.data = data
        if let links { self.links = links }
        if let connectTimeout { self.connectTimeout = connectTimeout.inSeconds }
        extensionCategoriesApply = spec.extensionCategoriesApply ?? false
        if let budget = spec.extensionBudget { extensionBudget = budget }
    }
}
