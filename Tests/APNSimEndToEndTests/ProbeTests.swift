import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The health probes orchestrators read (`/healthz`, `/readyz`), and the control API's refusal of query parameters
/// it does not know.
@Suite("Probes and query parameters", .endToEnd)
struct ProbeTests {
    static let phone = World.DeviceSpec(id: "device-1", name: "Test iPhone", apps: [.init(bundleID: "com.example.app", environment: .development)])

    @Test("The probes answer without the control token, which every other route still needs")
    func probesNeedNoToken() async throws {
        try await withGateway({ $0.controlHost = "0.0.0.0"; $0.controlToken = "s3cret-token" }) { harness in
            let control = harness.control
            let live = try await control.get("/healthz")
            #expect(live.status == 200)
            #expect((live.json as? [String: Any])?["status"] as? String == "ok")
            let ready = try await control.get("/readyz")
            #expect(ready.status == 200, "a gateway told to wait for no device is ready once it serves: \(ready.json)")
            #expect((ready.json as? [String: Any])?["status"] as? String == "ready")
            #expect(try await control.get("/v1/health").status == 401)
            #expect(try await control.get("/v1/devices").status == 401)
        }
    }

    @Test("/readyz is 503 with the reason until the devices it waits for link and register, 200 then, 503 when one goes")
    func readinessFollowsDevices() async throws {
        try await withGateway({ $0.readyDevices = [Self.phone] }) { harness in
            let control = harness.control
            let before = try await control.get("/readyz")
            #expect(before.status == 503)
            let reason = try #require((before.json as? [String: Any])?["reason"] as? String)
            #expect(reason == "1 of the 1 devices it starts have not linked and registered their apps yet: device-1", "\(reason)")
            #expect(try await control.get("/healthz").status == 200, "alive while not ready")

            try await withDevice(harness) { device in
                await device.waitUntilRegistered()
                try await control.waitUntil("ready") { try await control.get("/readyz").status == 200 }
                let ready = try #require(try await control.get("/readyz").json as? [String: Any])
                #expect(ready["devicesLinked"] as? Int == 1 && ready["devicesAwaited"] as? Int == 1, "\(ready)")
            }
            try await control.waitUntil("not ready once the device went") { try await control.get("/readyz").status == 503 }
        }
    }

    @Test("A query parameter the route does not take is a 400 naming it", arguments: [
        ("/v1/sends?uniqueID=abc", "unknown query parameter uniqueID: GET /v1/sends takes token, topic, apnsId, uniqueId, status, after, before, limit"),
        ("/v1/deliveries?device=d&colour=red", "unknown query parameter colour: GET /v1/deliveries takes device, token, bundleID, apnsId, uniqueId, after, before, cursor, order, limit, wait, count"),
        ("/v1/devices?online=true", "unknown query parameter online: GET /v1/devices takes no query parameters"),
        ("/v1/faults?x=1", "unknown query parameter x: GET /v1/faults takes no query parameters"),
        ("/readyz?verbose=1", "unknown query parameter verbose: GET /readyz takes no query parameters"),
    ])
    func unknownParameters(_ path: String, _ message: String) async throws {
        try await withGateway { harness in
            let answer = try await harness.control.get(path)
            #expect(answer.status == 400)
            #expect((answer.json as? [String: Any])?["error"] as? String == message)
        }
    }

    @Test("A POST's unknown parameter is refused before anything is done, its route named as the API documents it")
    func unknownPostParameter() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let answer = try await harness.control
                    .post("/v1/devices/device-1/apps?wiat=5", #"{"bundleID":"com.example.other","team":"SIMTEAM001"}"#)
                #expect(answer.status == 400)
                #expect((answer.json as? [String: Any])?["error"] as? String
                        == "unknown query parameter wiat: POST /v1/devices/{id}/apps takes wait")
                #expect(device.tokens["com.example.other"] == nil, "nothing was installed")
            }
        }
    }

    @Test("Every parameter a route lists is taken, and each old spelling too", arguments: [
        "/v1/sends?token=ab&topic=t&apnsId=x&uniqueId=u&status=200&after=0&before=1&limit=5",
        "/v1/deliveries?device=d&token=ab&bundleID=b&apnsId=x&uniqueId=u&after=0&before=1&cursor=x&order=oldest&limit=5&wait=0&count=1",
        "/v1/activities?device=d&bundleID=b&token=ab&channel=c",
        "/v1/interactions?device=d&token=ab&bundleID=b&apnsId=x&limit=5&wait=0&count=1",
        "/v1/tokens?cursor=\(String(repeating: "a", count: 64))&limit=5",
        "/v1/sends?since=0", "/v1/deliveries?bundle=b&before=x", "/v1/activities?bundle=b", "/v1/interactions?bundle=b",
        "/v1/tokens?after=\(String(repeating: "a", count: 64))",
    ])
    func knownParameters(_ path: String) async throws {
        try await withGateway { harness in
            let answer = try await harness.control.get(path)
            #expect(answer.status == 200, "\(answer.json)")
        }
    }
}
