import APNSimTesting
import Foundation
import Testing
import ToyProvider

/// The toy app server's send-to-display flow against a simulated APNs and iPhone, as a team would test its own.
@Suite("Order shipped notifications")
struct OrderShippedTests {
    static func notifier(for world: SimulatedWorld, topic: String? = nil) throws -> OrderNotifier {
        let provider = world.provider
        return try OrderNotifier(settings: .init(baseURL: provider.url(.development), caFile: provider.caFile, p8: try provider.p8(),
                                                 keyID: provider.keyID, teamID: provider.teamID, topic: topic ?? provider.topic))
    }

    @Test("The customer's iPhone shows the shipped order with the parcel's photo")
    func shippedWithPhoto() async throws {
        try await SimulatedWorld.run { world in
            let notifier = try Self.notifier(for: world)
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            let apnsID = try await notifier.orderShipped(order: 42, photoURL: "\(world.mediaURL)/media/sample.jpg", to: token)
            try await notifier.shutdown()

            let delivery = try await world.delivery(apnsID: apnsID)
            #expect(delivery.outcome == .displayed)
            #expect(delivery.content?.title == "Order #42 shipped")
            #expect(delivery.content?.threadID == "orders")
            #expect(delivery.content?.attachments.first?.type == "public.jpeg")
            #expect(delivery.extensionRun?.outcome == .completed)
        }
    }

    @Test("When APNs is unavailable the notifier reports 503 ServiceUnavailable, and nothing is shown")
    func serviceUnavailable() async throws {
        try await SimulatedWorld.run { world in
            let notifier = try Self.notifier(for: world)
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            try await world.inject(Fault(reason: "ServiceUnavailable"))
            await #expect(throws: OrderNotifier.Failure.refused(status: 503, reason: "ServiceUnavailable")) {
                _ = try await notifier.orderShipped(order: 7, photoURL: "\(world.mediaURL)/media/sample.jpg", to: token)
            }
            try await notifier.shutdown()
            #expect(try await world.sends().first?.fault == "f1 reject ServiceUnavailable")
        }
    }

    @Test("A topic the app does not have is DeviceTokenNotForTopic")
    func wrongTopic() async throws {
        try await SimulatedWorld.run { world in
            let notifier = try Self.notifier(for: world, topic: "com.example.elsewhere")
            let token = try world.token(device: "iphone-dev", app: "com.example.app")
            await #expect(throws: OrderNotifier.Failure.refused(status: 400, reason: "DeviceTokenNotForTopic")) {
                _ = try await notifier.orderShipped(order: 1, photoURL: "\(world.mediaURL)/media/sample.jpg", to: token)
            }
            try await notifier.shutdown()
        }
    }
}
