import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Apple's server-side failures, queued through `POST /v1/faults` and answered on the real provider connection.
@Suite("Fault injection", .endToEnd)
struct FaultInjectionTests {
    @Test("A queued fault answers the next matching pushes, then pushes pass again", arguments: [
        ("ServiceUnavailable", 503),
        ("InternalServerError", 500),
        ("TooManyRequests", 429),
        ("Forbidden", 403),
        ("Shutdown", 503),
    ])
    func queuedFault(_ reason: String, _ status: Int) async throws {
        try await withGateway { harness in
            let control = harness.control
            let queued = try await control.post("/v1/faults", #"[{"reason":"\#(reason)","count":2}]"#)
            #expect(queued.status == 200)
            #expect((queued.json as? [[String: Any]])?.count == 1)

            let client = try await harness.connect()
            let jwt = harness.jwt()
            for _ in 0..<2 {
                let answer = try await ControlAPITests.push(harness, client, jwt: jwt)
                #expect(answer.status == status)
                #expect(answer.reason == reason)
            }
            #expect(try await ControlAPITests.push(harness, client, jwt: jwt).status == 200, "the fault is used up")
            let pending = try #require(try await control.get("/v1/faults").json as? [Any])
            #expect(pending.isEmpty)
            let recorded = try #require(try await control.get("/v1/sends?status=\(status)").json as? [[String: Any]])
            #expect(recorded.count == 2, "injected answers are recorded like any other")
            await client.close()
        }
    }

    @Test("A fault scoped to one token leaves other tokens alone; a header error still wins")
    func scopedFault() async throws {
        try await withGateway { harness in
            let control = harness.control
            #expect(try await control.post("/v1/faults", #"[{"reason":"Unregistered","token":"\#(TestWorld.devToken.uppercased())"}]"#).status == 200)
            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await ControlAPITests.push(harness, client, token: TestWorld.longToken, jwt: jwt).status == 200)

            let badTopic = try await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                       headers: harness.headers(jwt: jwt, topic: "com.nobody")))
            #expect(badTopic.reason != "Unregistered", "validation runs before a fault is taken")

            harness.clock.advance(by: 5)
            let gone = try await ControlAPITests.push(harness, client, jwt: jwt)
            #expect(gone.status == 410)
            #expect(gone.reason == "Unregistered")
            #expect(gone.bodyText.contains(#""timestamp":\#(Int64((harness.clock.now.timeIntervalSince1970 * 1000).rounded()))"#),
                    "an injected 410 carries the gateway clock's time: \(gone.bodyText)")
            await client.close()
        }
    }

    @Test("Unusable faults are refused with a sentence and nothing is queued", arguments: [
        #"not json"#,
        #"[{"reason":"NoSuchReason"}]"#,
        #"[{"reason":"ServiceUnavailable"},{"reason":"Teapot","status":200}]"#,
        #"[{"reason":"ServiceUnavailable","count":0}]"#,
        #"[{"reason":"ServiceUnavailable","token":"xyz"}]"#,
        #"[{"reason":"ServiceUnavailable","environment":"staging"}]"#,
    ])
    func badFaults(_ body: String) async throws {
        try await withGateway { harness in
            let control = harness.control
            let answer = try await control.post("/v1/faults", body)
            #expect(answer.status == 400)
            #expect(((answer.json as? [String: Any])?["error"] as? String)?.isEmpty == false)
            #expect(harness.gateway.faults.pending.isEmpty)
        }
    }

    @Test("DELETE /v1/faults and POST /v1/reset drop queued faults")
    func clearing() async throws {
        try await withGateway { harness in
            let control = harness.control
            _ = try await control.post("/v1/faults", #"[{"reason":"ServiceUnavailable","count":5}]"#)
            #expect(try await control.delete("/v1/faults").status == 200)
            #expect(harness.gateway.faults.pending.isEmpty)
            _ = try await control.post("/v1/faults", #"[{"reason":"ServiceUnavailable"}]"#)
            _ = try await control.post("/v1/reset")
            #expect(harness.gateway.faults.pending.isEmpty)
            let client = try await harness.connect()
            #expect(try await ControlAPITests.push(harness, client, jwt: harness.jwt()).status == 200)
            await client.close()
        }
    }
}
