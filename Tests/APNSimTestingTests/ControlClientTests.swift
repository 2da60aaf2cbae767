import APNSimTestSupport
@testable import APNSimTesting
import NIOCore
import Testing

/// `ControlClient` as a test of a gateway started elsewhere uses it, here against a world's control URL: the device
/// list, a delivery's long-poll, a device taken offline and waited for, and the sentences of what goes wrong.
@Suite("APNSimTesting: the control API's client", .endToEnd)
struct ControlClientTests {
    @Test("The device list gives the token, the long-poll the displayed delivery, and waitUntil sees the device go offline")
    func throughTheControlAPI() async throws {
        try await SimulatedWorld.run { world in
            let control = ControlClient(baseURL: world.controlURL)
            let devices = try await control.get("/v1/devices")
            #expect(devices.status == 200)
            let device = try #require(devices.body?.array?.first { $0["id"]?.string == "iphone-dev" })
            let token = try #require(device["apps"]?.array?.first { $0["bundleID"]?.string == "com.example.app" }?["token"]?.string)
            #expect(token == (try world.token(device: "iphone-dev", app: "com.example.app")))

            let apnsID = try #require(try await world.send(#"{"aps":{"alert":"Shipped"}}"#, to: token)["apns-id"])
            let records = try await control.get("/v1/deliveries?apnsId=\(apnsID)&wait=60&count=1")
            #expect(records.body?.array?.first?["outcome"]?.string == "displayed")

            #expect(try await control.post("/v1/devices/iphone-dev/offline").status == 200)
            try await control.waitUntil("iphone-dev offline") {
                try await control.get("/v1/devices").body?.array?.first { $0["id"]?.string == "iphone-dev" }?["online"]?.bool == false
            }
        }
    }

    @Test("A refused request answers its status and the control API's sentence; a body that is not JSON is text")
    func refusals() async throws {
        try await SimulatedWorld.run { world in
            let control = ControlClient(baseURL: world.controlURL)
            let unknown = try await control.post("/v1/devices/no-such-device/offline")
            #expect(unknown.status == 404)
            #expect(unknown.body?["error"]?.string?.contains("no-such-device") == true)
            let bad = try await control.post("/v1/clock", "{not json")
            #expect(bad.status == 400)
            let metrics = try await control.get("/metrics")
            #expect(metrics.body == nil && metrics.text.contains("apnsim_"))
        }
    }

    @Test("A timeout under a second is kept to the nanosecond, not cut to whole seconds")
    func subsecondTimeout() {
        #expect(ControlClient.timeAmount(.milliseconds(500)) == .milliseconds(500))
        #expect(ControlClient.timeAmount(.seconds(600)) == .seconds(600))
    }

    @Test("A wait for what never comes throws, naming what it waited for")
    func waitThatEnds() async throws {
        try await SimulatedWorld.run { world in
            let control = ControlClient(baseURL: world.controlURL)
            let error = await #expect(throws: ControlClient.Failure.self) {
                try await control.waitUntil("a device named nobody", within: .milliseconds(300)) {
                    try await control.get("/v1/devices").body?.array?.contains { $0["id"]?.string == "nobody" } == true
                }
            }
            #expect(error?.description.hasPrefix("a device named nobody: still not so after") == true)
        }
    }
}
