import APNSimCore
import APNSimStore
import Foundation
import Hummingbird

/// `GET /v1/devices` and `GET /v1/deliveries`: the simulated devices and what they did with each push.
extension ControlAPI {
    struct DeviceView: Encodable {
        var id: String
        var name: String
        var model: String
        var os: String
        var online: Bool
        var apps: [AppView]
    }

    struct AppView: Encodable {
        var bundleID: String
        var environment: APNsEnvironment
        var token: String
    }

    func addDeviceRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("devices") { _, _ in
            try ControlJSON.response(self.devices.devices.map { device in
                DeviceView(id: device.descriptor.id, name: device.descriptor.name, model: device.descriptor.model,
                           os: device.descriptor.os, online: device.session != nil,
                           apps: device.registrations.values.sorted { $0.bundleID < $1.bundleID }.map {
                               AppView(bundleID: $0.bundleID, environment: $0.environment, token: $0.token.hex)
                           })
            })
        }
        v1.get("deliveries") { request, _ in try await self.deliveryRecords(request) }
    }

    /// Deliveries, oldest first. With `wait=SECONDS` the answer waits (up to 60 s) until at least one matching
    /// delivery has its receipt, so a test can send and then ask, with no sleep in between.
    private func deliveryRecords(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters
        var filter = DeliveryFilter()
        filter.device = query["device"].map(String.init)
        filter.token = query["token"].map(String.init)
        filter.bundleID = query["bundle"].map(String.init)
        filter.apnsId = query["apnsId"].map(String.init)
        if let after = query["after"] {
            guard let date = ControlJSON.date(String(after)) else {
                return ControlJSON.error("after must be an ISO-8601 time or milliseconds since 1970")
            }
            filter.after = date
        }
        if let limit = query["limit"] {
            guard let value = Int(limit), value > 0 else { return ControlJSON.error("limit must be a positive number") }
            filter.limit = value
        }
        var wait: Duration = .zero
        if let text = query["wait"] {
            guard let seconds = Double(text), seconds >= 0, seconds <= 60 else {
                return ControlJSON.error("wait must be a number of seconds from 0 to 60")
            }
            wait = .milliseconds(Int(seconds * 1000))
            filter.completedOnly = true
        }
        let deadline = ContinuousClock.now + wait
        while true {
            try deliveries.flush()
            let generation = deliveries.generation
            let found = try store.deliveries(matching: filter)
            if !found.isEmpty || ContinuousClock.now >= deadline { return try ControlJSON.response(found) }
            await deliveries.nextChange(since: generation, before: deadline)
        }
    }
}
