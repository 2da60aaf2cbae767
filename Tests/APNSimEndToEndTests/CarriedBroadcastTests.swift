import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// A broadcast to several devices of one process (`apnsim device --count`), through the real gateway and device hosts:
/// its pushes go to the process on one link, and their receipts come back together, each with where its activity
/// stands rather than the whole activity (docs/device-link.md, "Carried pushes").
@Suite("Carried broadcasts end to end", .endToEnd)
struct CarriedBroadcastTests {
    @Test("A broadcast to three devices of one process: each applies it, and the gateway's list shows each activity whole with the new state")
    func carriedToOneProcess() async throws {
        try await withGateway { harness in
            try await withDevices(harness, ids: ["fan-1", "fan-2", "fan-3"], groupID: "fan") { hosts in
                let (first, second, third) = (hosts[0], hosts[1], hosts[2])
                do {
                    do {
                        let control = harness.control
                        let channel = try await BroadcastChannelTests.create(harness, policy: 1)
                        var ids: [String: String] = [:]
                        for device in ["fan-1", "fan-2", "fan-3"] {
                            ids[device] = try await BroadcastChannelTests.subscribe(control, device: device, channel: channel)
                        }
                        let (response, apnsID) = try await BroadcastChannelTests.broadcast(harness, channel: channel,
                            aps: #"{"event":"update","timestamp":1800000060,"stale-date":1800003600,"content-state":{"status":"on the way","etaMinutes":20}}"#)
                        #expect(response.status == 200)
                        let records = try await BroadcastChannelTests.deliveries(control, apnsID: apnsID, count: 3)
                        #expect(records.count == 3)
                        #expect(records.allSatisfy { ($0["activity"] as? [String: Any])?["result"] as? String == "applied" }, "\(records)")
                        for record in records {
                            // The receipts came back sharing all but their own fields: each record has its own activity.
                            let device = try #require(record["device"] as? String)
                            let activity = try #require(ids[device])
                            #expect((record["activity"] as? [String: Any])?["id"] as? String == activity, "\(record)")
                            #expect(record["detail"] as? String == "Live Activity \(activity) update: applied", "\(record)")
                        }
                        for (host, device) in [(first, "fan-1"), (second, "fan-2"), (third, "fan-3")] {
                            #expect(host.state(ofActivity: try #require(ids[device]))?.contentState["status"] == .string("on the way"))
                        }
                        let listed = try #require(try await control.get("/v1/activities?channel=\(channel)").json as? [[String: Any]])
                        #expect(listed.count == 3)
                        for view in listed {
                            // The new state and stale date from the receipts; the rest as the gateway had it.
                            #expect((view["contentState"] as? [String: Any])?["status"] as? String == "on the way", "\(view)")
                            #expect(view["staleDate"] as? String == "2027-01-15T09:00:00.000Z", "\(view)")
                            let device = try #require(view["device"] as? String)
                            #expect((view["attributes"] as? [String: Any])?["orderID"] as? String == device, "\(view)")
                            #expect(view["attributesType"] as? String == "DeliveryAttributes" && view["channel"] as? String == channel)
                        }
                    }
                }
            }
        }
    }

    @Test("A carried broadcast's relevance-score that reorders a device's activities: the device reports the new order, and the gateway shows it")
    func carriedReorder() async throws {
        try await withGateway { harness in
            try await withDevices(harness, ids: ["fan-1", "fan-2"], groupID: "fan") { _ in
                let control = harness.control
                let channel = try await BroadcastChannelTests.create(harness, policy: 1)
                let subscribed = try await BroadcastChannelTests.subscribe(control, device: "fan-1", channel: channel)
                _ = try await BroadcastChannelTests.subscribe(control, device: "fan-2", channel: channel)
                let started = try await control.post("/v1/devices/fan-1/activities", #"""
                    {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"own"},
                     "contentState":{"status":"packed","etaMinutes":40},"relevanceScore":10}
                    """#)
                let scored = try #require((started.json as? [String: Any])?["id"] as? String)
                @Sendable func ranks() async throws -> [String: Int] {
                    let listed = try #require(try await control.get("/v1/activities?device=fan-1").json as? [[String: Any]])
                    return Dictionary(uniqueKeysWithValues: listed.compactMap { view in
                        (view["displayRank"] as? Int).map { (view["id"] as? String ?? "", $0) }
                    })
                }
                try await control.waitUntil("fan-1 reports its scored activity first") { try await ranks() == [scored: 1, subscribed: 2] }

                let (response, apnsID) = try await BroadcastChannelTests.broadcast(harness, channel: channel,
                    aps: #"{"event":"update","timestamp":1800000060,"relevance-score":50,"content-state":{"status":"on the way","etaMinutes":20}}"#)
                #expect(response.status == 200)
                _ = try await BroadcastChannelTests.deliveries(control, apnsID: apnsID, count: 2)
                try await control.waitUntil("fan-1 reports the broadcast's activity first") { try await ranks() == [subscribed: 1, scored: 2] }
            }
        }
    }
}
