@testable import APNSimDevice
import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import Foundation
import Testing

/// The Live Activity rules the gateway and the device both apply, held to one answer: the registry's view of an
/// activity (`GET /v1/activities`) and the device's own after the same start, pushes and end, without sockets.
@Suite("Live Activity rules: the gateway and the device as one pair")
struct LiveActivityRulePairTests {
    static let now = DeviceRegistryTests.now

    /// A registry and a device state that both know device d1 and its app, linked.
    static func pair() throws -> (DeviceRegistry, DeviceState) {
        let (registry, _) = DeviceRegistryTests.withDevice()
        var app = AppManifest.signed(bundleID: "com.example.app", team: "TEAM000001", environment: .development, now: now)
        app.activityTypes = nil
        var state = DeviceState(settings: .init(device: DeviceDescriptor(id: "d1", name: "d1")), apps: [app])
        _ = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: now)
        _ = try state.handle(.registered(DeviceRegistryTests.app), now: now)
        return (registry, state)
    }

    /// Hands the device every message `actions` sends it.
    static func deliver(_ actions: DeviceRegistry.Actions?, to state: inout DeviceState) throws {
        for (_, message) in actions?.send ?? [] { _ = try state.handle(message, now: now) }
    }

    static func push(_ aps: String, id: String) -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: DeviceRegistryTests.activityToken, bundleID: "com.example.app",
              pushType: .liveactivity, priority: 10, collapseID: nil, payload: #"{"aps":\#(aps)}"#)
    }

    @Test("Started, updated by push, ended by the app, and ended again: the gateway's activity is the device's at every step")
    func oneAnswer() throws {
        var (registry, state) = try Self.pair()
        let activity = LiveActivity(id: "A1", bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                                    contentState: ["status": .string("packed")], startedAt: Self.now,
                                    pushToken: DeviceRegistryTests.activityToken)
        try Self.deliver(registry.startActivity(activity, environment: .development, device: "d1"), to: &state)
        #expect(registry.devices["d1"]?.activities["A1"] == state.center.liveActivities["A1"])

        let timestamp = Int(Self.now.timeIntervalSince1970) + 10
        let update = Self.push(#"{"timestamp":\#(timestamp),"event":"update","content-state":{"status":"on the way"}}"#, id: "p1")
        for case .receipt(let receipt) in try state.handle(.push(update), now: Self.now.addingTimeInterval(10)).send {
            _ = registry.receipt(ReceivedReceipt(receipt), device: "d1", at: Self.now.addingTimeInterval(10))
        }
        #expect(state.center.liveActivities["A1"]?.contentState["status"] == .string("on the way"))
        #expect(registry.devices["d1"]?.activities["A1"] == state.center.liveActivities["A1"])

        let ended = Self.now.addingTimeInterval(20)
        try Self.deliver(registry.endActivity("A1", contentState: ["status": .string("delivered")], dismissal: nil, at: ended), to: &state)
        #expect(state.center.liveActivities["A1"]?.isEnded == true)
        #expect(registry.devices["d1"]?.activities["A1"] == state.center.liveActivities["A1"])

        let again = registry.endActivity("A1", contentState: ["status": .string("lost")], dismissal: nil, at: ended.addingTimeInterval(5))
        #expect(again?.send.isEmpty == true, "ending an ended activity changes nothing, so the device is not told")
        _ = try state.handle(.endActivity(.init(id: "A1", contentState: ["status": .string("lost")], dismissalDate: nil,
                                                at: ended.addingTimeInterval(5))), now: ended)
        #expect(registry.devices["d1"]?.activities["A1"] == state.center.liveActivities["A1"], "told anyway, the device keeps it too")
    }
}
