import APNSimRules
import APNSimGateway
import APNSimStore
import Foundation

extension SimulatedWorld {
    /// The delivery of the push the gateway answered with `apnsID`, once the device has said what it did with it.
    /// Throws if there is none within `timeout` (a push to a token no device owns has none). The wait ends as soon as
    /// the record is there; the default is long so that a busy CI machine never runs into it.
    public func delivery(apnsID: String, timeout: Duration = .seconds(60)) async throws -> DeliveryRecord {
        let found = try await gateway.deliveries.deliveries(matching: DeliveryFilter(apnsID: apnsID, completedOnly: true), count: 1,
                                                            until: .now + timeout)
        guard let delivery = found.first else {
            throw SimulatedWorldError("no delivery with an outcome for apns-id \(apnsID) within \(timeout)")
        }
        return delivery
    }

    /// A device's deliveries with an outcome, oldest first, once there are at least `count` (or `timeout` passed).
    public func deliveries(device: String, app: String? = nil, count: Int = 1, timeout: Duration = .seconds(60)) async throws -> [DeliveryRecord] {
        try await gateway.deliveries.deliveries(matching: DeliveryFilter(device: device, bundleID: app, completedOnly: true, limit: 10_000),
                                                count: count, until: .now + timeout)
    }

    /// What the gateway recorded of provider requests, newest first (`GET /v1/sends`).
    public func sends(_ filter: SendFilter = SendFilter()) async throws -> [SendRecord] {
        try await gateway.recorder.flush()
        return try await gateway.store.sends(matching: filter)
    }

    /// The provider connections the gateway refused or closed, oldest first (`GET /v1/connections`), once there are at
    /// least `count` (or `timeout` passed): a certificate of the other environment, a handshake the client failed.
    public func connections(_ filter: ConnectionFilter = ConnectionFilter(), count: Int = 0,
                            timeout: Duration = .seconds(60)) async throws -> [ConnectionRecord] {
        try await gateway.connectionRecords.connections(matching: filter, count: count, until: .now + timeout)
    }

    /// The record of the provider request the gateway answered with `apnsID`.
    public func send(apnsID: String) async throws -> SendRecord? {
        try await sends(SendFilter(apnsID: apnsID)).first
    }
}
