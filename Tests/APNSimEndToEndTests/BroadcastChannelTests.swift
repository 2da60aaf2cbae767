import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Crypto
import Foundation
import Testing

/// Broadcast channels (iOS 18) through the real gateway and real devices over TLS: the channel management API on its
/// own port, broadcasts on the provider port, fanned out to every Live Activity subscribed.
@Suite("Broadcast channels end to end", .endToEnd)
struct BroadcastChannelTests {
    static let app = "com.example.app"

    /// `request` on a token-auth connection to the management port (`management`) or the provider port.
    static func send(_ harness: GatewayHarness, _ request: ProviderRequest, management: Bool = true,
                     environment: APNsEnvironment = .development) async throws -> ProviderResponse {
        let client = try await harness.connect(environment, management: management)
        defer { Task { await client.close() } }
        return try await client.send(request)
    }

    static func auth(_ harness: GatewayHarness, _ extra: [(name: String, value: String)] = []) -> [(name: String, value: String)] {
        [("authorization", "bearer \(harness.jwt())")] + extra
    }

    /// Creates a channel with `policy` and returns its ID.
    static func create(_ harness: GatewayHarness, policy: Int = 1) async throws -> String {
        let response = try await send(harness, .channels("POST", bundleID: app,
                                                         body: #"{"message-storage-policy":\#(policy),"push-type":"LiveActivity"}"#,
                                                         headers: auth(harness)))
        #expect(response.status == 201, "\(response.bodyText)")
        return try #require(response["apns-channel-id"])
    }

    static func broadcast(_ harness: GatewayHarness, channel: String, aps: String,
                          headers extra: [(name: String, value: String)] = [("apns-push-type", "LiveActivity")]) async throws -> (ProviderResponse, String) {
        let apnsID = UUID().uuidString
        let response = try await send(harness, .broadcast(bundleID: app, channelID: channel, payload: #"{"aps":"# + aps + "}",
                                                          headers: auth(harness, extra + [("apns-id", apnsID)])), management: false)
        return (response, apnsID)
    }

    @Test("Create, read, list and delete a channel on the management port, with Apple's statuses, headers and bodies")
    func management() async throws {
        try await withGateway { harness in
            let requestID = UUID().uuidString.lowercased()
            let created = try await Self.send(harness, .channels("POST", bundleID: Self.app,
                                                                 body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#,
                                                                 headers: Self.auth(harness, [("apns-request-id", requestID)])))
            #expect(created.status == 201)
            #expect(created.body.isEmpty)
            #expect(created["apns-request-id"] == requestID, "the provider's request ID comes back")
            let id = try #require(created["apns-channel-id"])
            #expect(Data(base64Encoded: id)?.count == 16)

            let read = try await Self.send(harness, .channels("GET", bundleID: Self.app, channelID: id, headers: Self.auth(harness)))
            #expect(read.status == 200)
            #expect(read.bodyText == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
            #expect(read["apns-request-id"]?.count == 36, "a request ID of the gateway's own when the provider sent none")

            let second = try await Self.create(harness, policy: 0)
            let listed = try await Self.send(harness, .allChannels(bundleID: Self.app, headers: Self.auth(harness)))
            #expect(listed.status == 200)
            let ids = (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: [String]])?["channels"]
            #expect(Set(ids ?? []) == [id, second] && ids?.count == 2, "\(listed.bodyText)")
            // Channels of one environment do not exist in the other.
            let production = try await Self.send(harness, .allChannels(bundleID: Self.app, headers: Self.auth(harness)), environment: .production)
            #expect(production.bodyText == #"{"channels":[]}"#)

            let deleted = try await Self.send(harness, .channels("DELETE", bundleID: Self.app, channelID: id, headers: Self.auth(harness)))
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            let gone = try await Self.send(harness, .channels("GET", bundleID: Self.app, channelID: id, headers: Self.auth(harness)))
            #expect(gone.status == 400 && gone.reason == "ChannelNotRegistered")
            let (sent, _) = try await Self.broadcast(harness, channel: id, aps: #"{"event":"update","timestamp":1,"content-state":{}}"#)
            #expect(sent.status == 400 && sent.reason == "ChannelNotRegistered", "a deleted channel's broadcasts are refused")
            #expect(sent["apns-request-id"] != nil)

            let records = try await harness.sends()
            #expect(records.contains { $0.method == "DELETE" && $0.status == 204 && $0.path == "/1/apps/com.example.app/channels" })
            #expect(records.contains { $0.reason == "ChannelNotRegistered" && $0.explanation?.contains(id) == true })
        }
    }

    @Test("Bad channel management requests get Apple's reasons")
    func managementErrors() async throws {
        try await withGateway { harness in
            let id = try await Self.create(harness)
            let body = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
            let cases: [(ProviderRequest, Int, String)] = [
                (.channels("GET", bundleID: Self.app, headers: Self.auth(harness)), 400, "MissingChannelId"),
                (.channels("GET", bundleID: Self.app, channelID: "not base64!", headers: Self.auth(harness)), 400, "BadChannelId"),
                (.channels("GET", bundleID: Self.app, channelID: "dHN0LXNyY2gtY2hubA==", headers: Self.auth(harness)), 400, "ChannelNotRegistered"),
                (.channels("POST", bundleID: Self.app, body: #"{"push-type":"LiveActivity"}"#, headers: Self.auth(harness)), 400, "MissingChannelQueueSize"),
                (.channels("POST", bundleID: Self.app, body: #"{"message-storage-policy":1,"push-type":"LiveActivity","x":1}"#,
                           headers: Self.auth(harness)), 400, "BadRequestParams"),
                (.channels("POST", bundleID: Self.app, body: "{not json", headers: Self.auth(harness)), 400, "BadRequestPayload"),
                (.channels("POST", bundleID: Self.app, body: #"{"message-storage-policy":1,"push-type":"alert"}"#, headers: Self.auth(harness)),
                 400, "InvalidPushType"),
                (.channels("POST", bundleID: Self.app, body: #"{"message-storage-policy":1}"#, headers: Self.auth(harness)), 400, "MissingPushType"),
                (.channels("POST", bundleID: "com.example.app.push-type.liveactivity", body: body, headers: Self.auth(harness)), 400, "TopicDisallowed"),
                (.channels("POST", bundleID: "com.other.app", body: body, headers: Self.auth(harness)), 403, "TopicMismatch"),
                (.channels("POST", bundleID: Self.app, body: body), 403, "MissingProviderToken"),
                (.channels("PUT", bundleID: Self.app, channelID: id, headers: Self.auth(harness)), 405, "MethodNotAllowed"),
                (.allChannels(bundleID: Self.app, headers: Self.auth(harness)).with(method: "DELETE"), 404, "BadPath"),
                // APNSwift reads and deletes at /channels/<id>; Apple's path takes the ID in apns-channel-id.
                (ProviderRequest(headers: [(":method", "GET"), (":scheme", "https"), (":path", "/1/apps/\(Self.app)/channels/\(id)"),
                                           (":authority", "api-manage-broadcast.sandbox.push.apple.com")] + Self.auth(harness)), 404, "BadPath"),
                (.push(token: String(repeating: "a", count: 64), payload: GatewayHarness.alert, headers: Self.auth(harness)), 404, "BadPath"),
            ]
            for (request, status, reason) in cases {
                let response = try await Self.send(harness, request)
                #expect(response.status == status && response.reason == reason,
                        "\(request.headers.first { $0.name == ":path" }?.value ?? ""): \(response.status) \(response.bodyText)")
                #expect(response["apns-request-id"] != nil)
            }
            // The provider port has no channel management: Apple's paths there are BadPath.
            let wrongPort = try await Self.send(harness, .channels("POST", bundleID: Self.app, body: body, headers: Self.auth(harness)),
                                                management: false)
            #expect(wrongPort.status == 404 && wrongPort.reason == "BadPath")
        }
    }

    @Test("Bad broadcasts get Apple's reasons")
    func broadcastErrors() async throws {
        try await withGateway { harness in
            let stored = try await Self.create(harness, policy: 1)
            let unstored = try await Self.create(harness, policy: 0)
            let aps = #"{"event":"update","timestamp":1,"content-state":{}}"#
            let liveActivity = [(name: "apns-push-type", value: "liveactivity")]
            let cases: [(channel: String?, aps: String, headers: [(name: String, value: String)], status: Int, reason: String)] = [
                (nil, aps, liveActivity, 400, "MissingChannelId"),
                ("%%%", aps, liveActivity, 400, "BadChannelId"),
                (Data(repeating: 7, count: 65).base64EncodedString(), aps, liveActivity, 400, "BadChannelId"),
                (stored, aps, [], 400, "MissingPushType"),
                (stored, aps, [("apns-push-type", "alert")], 400, "InvalidPushType"),
                (stored, aps, liveActivity + [("apns-priority", "7")], 400, "BadPriority"),
                (stored, aps, liveActivity + [("apns-expiration", "soon")], 400, "BadExpirationDate"),
                (unstored, aps, liveActivity, 400, "BadExpirationDate"),
                (stored, String(repeating: " ", count: 5200) + aps, liveActivity, 413, "PayloadTooLarge"),
            ]
            for item in cases {
                let response = try await Self.send(harness, .broadcast(bundleID: Self.app, channelID: item.channel, payload: #"{"aps":"# + item.aps + "}",
                                                                       headers: Self.auth(harness, item.headers)), management: false)
                #expect(response.status == item.status && response.reason == item.reason, "\(item.reason): \(response.bodyText)")
            }
            let empty = try await Self.send(harness, .broadcast(bundleID: Self.app, channelID: stored, payload: nil, headers: Self.auth(harness, liveActivity)),
                                            management: false)
            #expect(empty.status == 400 && empty.reason == "PayloadEmpty")
            let notJSON = try await Self.send(harness, .broadcast(bundleID: Self.app, channelID: stored, payload: "[1]", headers: Self.auth(harness, liveActivity)),
                                              management: false)
            #expect(notJSON.status == 400 && notJSON.reason == "BadRequestPayload")
            let otherApp = try await Self.send(harness, .broadcast(bundleID: "com.example.app.push-type.liveactivity", channelID: stored, payload: "{}",
                                                                   headers: Self.auth(harness, liveActivity)), management: false)
            #expect(otherApp.status == 400 && otherApp.reason == "TopicDisallowed")
            let (zero, _) = try await Self.broadcast(harness, channel: unstored, aps: aps, headers: liveActivity + [("apns-expiration", "0")])
            #expect(zero.status == 200, "a channel without storage takes apns-expiration 0")
            #expect(zero["apns-request-id"] != nil && zero["apns-unique-id"] != nil)
            let unique = try #require(zero["apns-unique-id"])
            let sends = try await harness.control.get("/v1/sends?uniqueId=\(unique)").json as? [[String: Any]]
            #expect(sends?.count == 1 && sends?.first?["status"] as? Int == 200, "the broadcast is found by its apns-unique-id")
        }
    }

    /// The app on `device` starts a delivery activity subscribed to `channel`; returns its ID.
    static func subscribe(_ control: ControlClient, device: String, channel: String) async throws -> String {
        let started = try await control.post("/v1/devices/\(device)/activities", #"""
            {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"\#(device)"},
             "contentState":{"status":"packed","etaMinutes":40},"channel":"\#(channel)"}
            """#)
        #expect(started.status == 201, "\(started.json)")
        let view = try #require(started.json as? [String: Any])
        #expect(view["token"] == nil, "an activity subscribed to a channel has no push token")
        #expect(view["channel"] as? String == channel)
        return try #require(view["id"] as? String)
    }

    static func deliveries(_ control: ControlClient, apnsID: String, count: Int) async throws -> [[String: Any]] {
        try await control.deliveries("apnsId=\(apnsID)", count: count)
    }

    @Test("One broadcast reaches every activity subscribed, on every device; a late subscriber gets the stored message only with storage")
    func fanOutAndStorage() async throws {
        try await withGateway { harness in
            try await withDevice(harness, id: "device-1") { first in
                try await withDevice(harness, id: "device-2") { second in
                    let control = harness.control
                    let stored = try await Self.create(harness, policy: 1)
                    let one = try await Self.subscribe(control, device: "device-1", channel: stored)
                    let two = try await Self.subscribe(control, device: "device-2", channel: stored)
                    let (response, apnsID) = try await Self.broadcast(harness, channel: stored,
                        aps: #"{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}"#)
                    #expect(response.status == 200)
                    let records = try await Self.deliveries(control, apnsID: apnsID, count: 2)
                    #expect(Set(records.compactMap { $0["device"] as? String }) == ["device-1", "device-2"])
                    for record in records {
                        let change = try #require(record["activity"] as? [String: Any])
                        #expect(change["result"] as? String == "applied" && change["channel"] as? String == stored, "\(record)")
                        #expect(record["outcome"] as? String == "liveactivity")
                    }
                    #expect(first.state(ofActivity: one)?.contentState["status"] == .string("on the way"))
                    #expect(second.state(ofActivity: two)?.contentState["etaMinutes"] == .number(20))
                    let listed = try #require(try await control.get("/v1/activities?channel=\(stored)").json as? [[String: Any]])
                    #expect(listed.count == 2)
                    #expect(listed.allSatisfy { ($0["contentState"] as? [String: Any])?["status"] as? String == "on the way" })

                    // Subscribing later: the channel's stored message arrives (policy 1).
                    let late = try await Self.subscribe(control, device: "device-2", channel: stored)
                    let all = try await Self.deliveries(control, apnsID: apnsID, count: 3)
                    let lateRecord = try #require(all.first { ($0["activity"] as? [String: Any])?["id"] as? String == late })
                    #expect((lateRecord["activity"] as? [String: Any])?["result"] as? String == "applied")
                    #expect(second.state(ofActivity: late)?.contentState["status"] == .string("on the way"))

                    // Without storage, a late subscriber gets nothing: its subscription (and any stored message) is recorded
                    // before the start's answer, so the count is final when it comes.
                    let unstored = try await Self.create(harness, policy: 0)
                    _ = try await Self.subscribe(control, device: "device-1", channel: unstored)
                    let (zero, zeroID) = try await Self.broadcast(harness, channel: unstored,
                        aps: #"{"event":"update","timestamp":1800000060,"content-state":{"status":"late","etaMinutes":5}}"#,
                        headers: [("apns-push-type", "liveactivity"), ("apns-expiration", "0")])
                    #expect(zero.status == 200)
                    #expect(try await Self.deliveries(control, apnsID: zeroID, count: 1).count == 1)
                    let lateZero = try await Self.subscribe(control, device: "device-2", channel: unstored)
                    let after = try #require(try await control.get("/v1/deliveries?apnsId=\(zeroID)").json as? [[String: Any]])
                    #expect(after.count == 1, "no stored message for \(lateZero)")
                }
            }
        }
    }

    @Test("A device offline at the broadcast gets the stored message on coming back (policy 1), and nothing without storage (policy 0)")
    func offlineDevice() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let control = harness.control
                let stored = try await Self.create(harness, policy: 1), unstored = try await Self.create(harness, policy: 0)
                let kept = try await Self.subscribe(control, device: "device-1", channel: stored)
                let lost = try await Self.subscribe(control, device: "device-1", channel: unstored)
                #expect(try await control.post("/v1/devices/device-1/offline").status == 200)
                let aps = #"{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}"#
                let (_, keptID) = try await Self.broadcast(harness, channel: stored, aps: aps)
                let (_, lostID) = try await Self.broadcast(harness, channel: unstored, aps: aps,
                                                           headers: [("apns-push-type", "liveactivity"), ("apns-expiration", "0")])
                let dropped = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: lostID))
                #expect(dropped["outcome"] as? String == "dropped")
                #expect((dropped["detail"] as? String)?.contains("not stored") == true, "\(dropped)")
                #expect(try await control.post("/v1/devices/device-1/online").status == 200)
                let arrived = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: keptID))
                #expect((arrived["activity"] as? [String: Any])?["result"] as? String == "applied", "\(arrived)")
                #expect(device.state(ofActivity: kept)?.contentState["status"] == .string("on the way"))
                #expect(device.state(ofActivity: lost)?.contentState["status"] == .string("packed"))
            }
        }
    }

    @Test("A push-to-start with input-push-channel starts an activity subscribed to the channel; broadcasts reach it; a broadcast cannot start one")
    func pushToStartOnChannel() async throws {
        try await withGateway { harness in
            var app = AppManifest.signed(bundleID: Self.app, team: TestWorld.team, environment: .development, now: Date())
            app.activityTypes = [LiveActivityDeliveryTests.delivery]
            try await withDevice(harness, apps: [app]) { device in
                let control = harness.control
                let channel = try await Self.create(harness, policy: 1)
                let startToken = try #require(device.pushToStartTokens[Self.app]?["DeliveryAttributes"]?.hex)
                let (response, startID) = try await LiveActivityDeliveryTests.update(harness, token: startToken, aps: #"""
                    {"event":"start","timestamp":1800000000,"attributes-type":"DeliveryAttributes","attributes":{"orderID":"C-3"},
                     "content-state":{"status":"packed","etaMinutes":45},"alert":{"title":"Order C-3","body":"Packed"},
                     "input-push-channel":"\#(channel)"}
                    """#)
                #expect(response.status == 200)
                let started = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: startID))
                #expect((started["activity"] as? [String: Any])?["result"] as? String == "started")
                let listed = try #require(try await control.get("/v1/activities?channel=\(channel)").json as? [[String: Any]])
                #expect(listed.count == 1)
                #expect(listed.first?["token"] == nil, "subscribed to the channel, it gets no token")
                let id = try #require(listed.first?["id"] as? String)

                let (_, updateID) = try await Self.broadcast(harness, channel: channel,
                    aps: #"{"event":"update","timestamp":1800000100,"content-state":{"status":"on the way","etaMinutes":15}}"#)
                let updated = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: updateID))
                #expect((updated["activity"] as? [String: Any])?["result"] as? String == "applied", "\(updated)")
                #expect(device.state(ofActivity: id)?.contentState["etaMinutes"] == .number(15))

                let (startResponse, startAgainID) = try await Self.broadcast(harness, channel: channel, aps: #"""
                    {"event":"start","timestamp":1800000200,"attributes-type":"DeliveryAttributes","attributes":{"orderID":"D-1"},
                     "content-state":{"status":"packed","etaMinutes":1},"alert":"x"}
                    """#)
                #expect(startResponse.status == 200, "APNs does not read the payload's event; the device refuses it")
                let refused = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: startAgainID))
                let change = try #require(refused["activity"] as? [String: Any])
                #expect(change["result"] as? String == "refused")
                #expect((change["reason"] as? String)?.contains("a broadcast cannot start a Live Activity") == true)
                #expect((try await control.get("/v1/activities?channel=\(channel)").json as? [Any])?.count == 1)
            }
        }
    }

    @Test("Starting an activity on a channel the app does not have is refused, naming the channel")
    func unknownChannel() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { _ in
                let control = harness.control
                let refused = try await control.post("/v1/devices/device-1/activities", #"""
                    {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{},"contentState":{},"channel":"bm9uZQ=="}
                    """#)
                #expect(refused.status == 422)
                #expect((refused.json as? [String: Any])?["error"] as? String
                        == "com.example.app has no broadcast channel bm9uZQ== in development; create one first (apnsim channel create com.example.app)")
            }
        }
    }

    @Test("apnsim channel create, list, read, broadcast and delete: a provider's calls from the command line, errors in one sentence")
    func commandLine() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let p8 = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-\(UUID().uuidString).p8").path
                try TestWorld.privateKeys[TestWorld.teamKey]!.pemRepresentation.write(toFile: p8, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(atPath: p8) }
                func apnsim(_ arguments: [String], port: Int) async throws -> (ChildProcess.ExitStatus, String) {
                    try await ChildProcess.run([ApnsimProcess.executable.path, "channel"] + arguments
                                               + ["--port", "\(port)", "--ca", harness.pki.caFile, "--p8", p8])
                }
                let manage = harness.endpoints.managementPorts[.development]!, provider = harness.endpoints.providerPorts[.development]!
                let (created, createOutput) = try await apnsim(["create", Self.app, "--storage-policy", "1"], port: manage)
                #expect(created == .exited(0), "\(createOutput)")
                let id = try #require(createOutput.split(separator: "\n").first { $0.hasPrefix("apns-channel-id: ") }?.dropFirst(17).description)
                let (_, listed) = try await apnsim(["list", Self.app], port: manage)
                #expect(listed.hasPrefix(id + "\n"), "\(listed)")
                let (_, read) = try await apnsim(["read", Self.app, id], port: manage)
                #expect(read.hasPrefix(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#), "\(read)")

                let control = harness.control
                let activity = try await Self.subscribe(control, device: "device-1", channel: id)
                let (sent, sentOutput) = try await apnsim(["broadcast", Self.app, id, "--payload",
                    #"{"aps":{"event":"update","timestamp":1800000060,"content-state":{"status":"on the way","etaMinutes":20}}}"#], port: provider)
                #expect(sent == .exited(0), "\(sentOutput)")
                let records = try await Self.deliveries(control, apnsID: try #require(try await harness.sends().first?.apnsID), count: 1)
                #expect((records.first?["activity"] as? [String: Any])?["result"] as? String == "applied")
                #expect(device.state(ofActivity: activity)?.contentState["status"] == .string("on the way"))

                let (deleted, deleteOutput) = try await apnsim(["delete", Self.app, id], port: manage)
                #expect(deleted == .exited(0) && deleteOutput.hasPrefix("deleted \(id)\n"), "\(deleteOutput)")
                let (gone, goneOutput) = try await apnsim(["read", Self.app, id], port: manage)
                #expect(gone == .exited(1))
                #expect(goneOutput == "apnsim: the gateway answered 400 ChannelNotRegistered\n", "\(goneOutput)")
            }
        }
    }
}

extension ProviderRequest {
    /// The same request with another `:method`.
    func with(method: String) -> ProviderRequest {
        var copy = self
        copy.headers = headers.map { $0.name == ":method" ? (":method", method) : $0 }
        return copy
    }
}
