import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Broadcasts across replicas (docs/cluster.md, "Broadcasts across replicas"): part of ``ClusterTests``, run in
/// `.ci/run`'s cluster step.
extension ClusterTests {
    @Test("Broadcasts across replicas: a channel created through one replica, a broadcast through a third that no device links to, the activities on devices of both other replicas updated once; a later subscriber gets the stored message; a channel deleted through one is refused through another at once")
    func broadcastAcross() async throws {
        try await PostgresServer.with { postgres in
            let near = try await Self.replica("near", on: postgres)
            defer { near.process.signal(SIGINT) }
            let far = try await Self.replica("far", on: postgres)
            defer { far.process.signal(SIGINT) }
            let bare = try await Self.replica("bare", on: postgres)
            defer { bare.process.signal(SIGINT) }
            let (nearDevices, _) = try await ChaosTests.devices(1, gateway: near, data: temporaryDirectory(), id: "near")
            defer { nearDevices.signal(SIGINT) }
            let (farDevices, _) = try await ChaosTests.devices(1, gateway: far, data: temporaryDirectory(), id: "far")
            defer { farDevices.signal(SIGINT) }
            let jwt = try GatewayProcess.jwt()
            let nearDevice = try #require(try await near.control.get("/v1/devices").body?.array?.first { $0["replica"]?.string == "near" }?["id"]?.string)
            let farDevice = try #require(try await far.control.get("/v1/devices").body?.array?.first { $0["replica"]?.string == "far" }?["id"]?.string)

            let channel = try await Self.createChannel(through: near, jwt: jwt)
            // Each subscribed through the replica its device links to; the broadcast goes through the one with no device.
            let nearActivity = try await BroadcastChannelTests.subscribe(near.control, device: nearDevice, channel: channel)
            let farActivity = try await BroadcastChannelTests.subscribe(far.control, device: farDevice, channel: channel)
            let (status, apnsID) = try await Self.broadcast(on: channel, through: bare, jwt: jwt, status: "on the way")
            #expect(status == 200)
            let records = try await BroadcastChannelTests.deliveries(near.control, apnsID: apnsID, count: 2)
            let updated = Dictionary(records.compactMap { record -> (String, String)? in
                guard let activity = record["activity"] as? [String: Any], activity["result"] as? String == "applied" else { return nil }
                return (record["device"] as? String ?? "", activity["id"] as? String ?? "")
            }, uniquingKeysWith: { first, _ in first })
            #expect(updated == [nearDevice: nearActivity, farDevice: farActivity], "\(records)")

            // A later subscriber, on the replica that did not accept the broadcast, gets the channel's stored message.
            let late = try await BroadcastChannelTests.subscribe(far.control, device: farDevice, channel: channel)
            let withLate = try await BroadcastChannelTests.deliveries(bare.control, apnsID: apnsID, count: 3)
            #expect(withLate.contains { ($0["activity"] as? [String: Any])?["id"] as? String == late }, "\(withLate)")

            // Each activity updated once: a second broadcast is read after the first's every record.
            let (_, second) = try await Self.broadcast(on: channel, through: far, jwt: jwt, status: "delivered")
            _ = try await BroadcastChannelTests.deliveries(far.control, apnsID: second, count: 3)
            let all = try await BroadcastChannelTests.deliveries(near.control, apnsID: apnsID, count: 3)
            #expect(all.count == 3, "one delivery per activity, none twice: \(all)")

            // Deleted through one replica: refused through another at once, and so are its reads.
            let client = try await far.connect(management: true)
            let deleted = try await client.send(.channels("DELETE", bundleID: BroadcastChannelTests.app, channelID: channel,
                                                         headers: [("authorization", "bearer \(jwt)")]))
            await client.close()
            #expect(deleted.status == 204, "\(deleted.bodyText)")
            let (refused, _) = try await Self.broadcast(on: channel, through: near, jwt: jwt, status: "gone")
            #expect(refused == 400)
            let sends = try await near.control.get("/v1/sends?status=400").body?.array ?? []
            #expect(sends.contains { $0["reason"]?.string == "ChannelNotRegistered" }, "\(sends)")
        }
    }

    /// A channel of `com.example.app` with storage, created through `replica`'s management port: its ID.
    static func createChannel(through replica: GatewayProcess, jwt: String) async throws -> String {
        let client = try await replica.connect(management: true)
        defer { Task { await client.close() } }
        let created = try await client.send(.channels("POST", bundleID: BroadcastChannelTests.app,
                                                      body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#,
                                                      headers: [("authorization", "bearer \(jwt)")]))
        #expect(created.status == 201, "\(created.bodyText)")
        return try #require(created["apns-channel-id"])
    }

    /// A Live Activity update broadcast on `channel` through `replica`: its status and apns-id.
    static func broadcast(on channel: String, through replica: GatewayProcess, jwt: String,
                          status: String) async throws -> (status: Int, apnsID: String) {
        let client = try await replica.connect()
        defer { Task { await client.close() } }
        let apnsID = UUID().uuidString
        let payload = #"{"aps":{"event":"update","timestamp":\#(Int(Date().timeIntervalSince1970)),"content-state":{"status":"\#(status)","etaMinutes":20}}}"#
        let response = try await client.send(.broadcast(bundleID: BroadcastChannelTests.app, channelID: channel, payload: payload,
                                                        headers: [("authorization", "bearer \(jwt)"), ("apns-push-type", "LiveActivity"),
                                                                  ("apns-id", apnsID)]))
        return (response.status, apnsID)
    }
}
