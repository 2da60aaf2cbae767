import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import NIOHTTP1
import Testing

/// One spelling for each name of the control API (README, "Changelog"): the new ones answer, the old ones answer the
/// same for one release with `Deprecation`, and a request giving both spellings of one name is refused.
@Suite("Spellings", .endToEnd)
struct SpellingTests {
    /// `path`'s answer, and whether it carried `Deprecation`.
    static func get(_ control: ControlClient, _ path: String) async throws -> (json: Any, deprecated: Bool) {
        let answer = try await control.get(path)
        #expect(answer.status == 200, "\(path): \(answer.json)")
        return (answer.json, answer.headers.first(name: "Deprecation") == "@1795910400")
    }

    /// `json` as text with sorted keys, to compare two answers.
    static func text(_ json: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    static func ids(_ json: Any) -> [String] {
        (json as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    @Test("Each old query spelling answers as its new one, marked Deprecation; the new ones are not marked")
    func oldQueries() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let control = harness.control
                let token = try #require(device.tokens["com.example.app"])
                for index in 0..<4 {
                    _ = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"\#(index)"}}"#,
                                                           apnsID: UUID().uuidString)
                }
                let all = Self.ids(try await control.deliveries("limit=100", count: 4))
                #expect(all.count == 4)
                for (new, old) in [("/v1/deliveries?bundleID=com.example.app", "/v1/deliveries?bundle=com.example.app"),
                                   ("/v1/deliveries?order=newest&cursor=\(all[2])", "/v1/deliveries?order=newest&before=\(all[2])"),
                                   ("/v1/activities?bundleID=com.example.app", "/v1/activities?bundle=com.example.app"),
                                   ("/v1/interactions?bundleID=com.example.app", "/v1/interactions?bundle=com.example.app"),
                                   ("/v1/sends?after=0", "/v1/sends?since=0"),
                                   ("/v1/tokens?cursor=\(String(repeating: "0", count: 64))", "/v1/tokens?after=\(String(repeating: "0", count: 64))")] {
                    let (newAnswer, newMarked) = try await Self.get(control, new)
                    let (oldAnswer, oldMarked) = try await Self.get(control, old)
                    #expect(try Self.text(newAnswer) == Self.text(oldAnswer), "\(old) answers as \(new)")
                    #expect(oldMarked, "\(old) is marked deprecated")
                    #expect(newMarked == (new.hasPrefix("/v1/sends") || new.hasPrefix("/v1/deliveries")),
                            "\(new): only send and delivery records still write an old spelling")
                }
                #expect(Self.ids(try await Self.get(control, "/v1/deliveries?order=newest&cursor=\(all[2])").json) == [all[1], all[0]],
                        "newest first, the cursor pages older ones")
                #expect(Self.ids(try await Self.get(control, "/v1/deliveries?cursor=\(all[1])").json) == [all[2], all[3]],
                        "oldest first, the cursor pages newer ones")
                let both = try await control.get("/v1/deliveries?bundle=a&bundleID=a")
                #expect(both.status == 400)
                #expect((both.json as? [String: Any])?["error"] as? String == "bundle is the old spelling of bundleID: give bundleID alone")
            }
        }
    }

    @Test("A send record names its apns-id apnsId and its team team, and for one release apnsID and teamID beside them")
    func sendRecordSpelling() async throws {
        try await withGateway { harness in
            let control = harness.control
            let apnsID = UUID().uuidString
            _ = try await DeviceDeliveryTests.push(harness, token: try #require(DeviceToken(TestWorld.devToken)),
                                                   payload: #"{"aps":{"alert":"a"}}"#, apnsID: apnsID)
            let (json, marked) = try await Self.get(control, "/v1/sends?apnsId=\(apnsID)")
            let record = try #require((json as? [[String: Any]])?.first)
            #expect(record["apnsId"] as? String == apnsID)
            #expect(record["apnsID"] as? String == apnsID)
            #expect(record["team"] as? String == TestWorld.team && record["teamID"] as? String == TestWorld.team)
            #expect(marked)
        }
    }

    @Test("GET /v1/interactions?wait= holds its answer until an interaction is recorded, as deliveries do")
    func interactionsWait() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [InteractionTests.app()]) { device in
                let control = harness.control
                let apnsID = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Sale"}}"#)
                // Asked before the tap: a wait that answered at once would answer with nothing (the tap takes a round
                // trip to the device, far longer than the request takes to reach the gateway).
                async let waited = control.get("/v1/interactions?apnsId=\(apnsID)&wait=60")
                #expect(try await control.post("/v1/devices/device-1/tap", #"{"apnsId":"\#(apnsID)"}"#).status == 200)
                let listed = try #require(try await waited.json as? [[String: Any]])
                #expect(listed.count == 1 && listed.first?["apnsId"] as? String == apnsID)
                let none = try await control.get("/v1/interactions?apnsId=nothing&wait=0")
                #expect((none.json as? [[String: Any]])?.isEmpty == true, "wait=0 answers at once")
            }
        }
    }
}
