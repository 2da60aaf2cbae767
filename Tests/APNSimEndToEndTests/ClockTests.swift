import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// `GET /v1/clock` and `POST /v1/clock`: a virtual clock moves ahead on request; the system's clock does not.
@Suite("Clock", .endToEnd)
struct ClockTests {
    @Test("A virtual clock moves ahead by what is asked, and token checks see it")
    func virtualClock() async throws {
        let clock = VirtualClock()
        try await withGateway({ $0.clock = .virtual(clock); $0.virtualClock = clock }) { harness in
            let control = harness.control
            let before = try #require(try await control.get("/v1/clock").json as? [String: Any])
            #expect(before["virtual"] as? Bool == true)
            let moved = try await control.post("/v1/clock", #"{"advance":3700}"#)
            #expect(moved.status == 200)
            #expect((moved.json as? [String: Any])?["offsetSeconds"] as? Double == 3700)
            #expect(clock.offsetSeconds == 3700)
            // A token made by the system's clock is now over an hour old by the gateway's.
            let client = try await harness.connect()
            let answer = try await ControlAPITests.push(harness, client, jwt: TestWorld.signer(TestWorld.teamKey).token(issuedAt: Date()))
            #expect(answer.reason == "ExpiredProviderToken")
            await client.close()
        }
    }

    @Test("Bad advances are refused with a sentence, and the system's clock is not moved", arguments: [
        (#"{"advance":-5}"#, 400, "only moves forward"),
        (#"{"advance":"an hour"}"#, 400, "advance"),
        (#"not json"#, 400, "advance"),
    ])
    func badAdvance(_ body: String, _ status: Int, _ mention: String) async throws {
        let clock = VirtualClock()
        try await withGateway({ $0.clock = .virtual(clock); $0.virtualClock = clock }) { harness in
            let answer = try await harness.control.post("/v1/clock", body)
            #expect(answer.status == status)
            #expect(((answer.json as? [String: Any])?["error"] as? String)?.contains(mention) == true, "\(answer.json)")
            #expect(clock.offsetSeconds == 0)
        }
    }

    @Test("A gateway on the system's clock answers 409 and says why")
    func systemClock() async throws {
        try await withGateway({ $0.clock = .system }) { harness in
            let answer = try await harness.control.post("/v1/clock", #"{"advance":60}"#)
            #expect(answer.status == 409)
            #expect(((answer.json as? [String: Any])?["error"] as? String)?.contains("system's clock") == true)
        }
    }
}
