import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Faults that act on whole provider connections, with many streams in flight at once: what a provider sees,
/// and that a provider which sends again what was not answered loses nothing and duplicates nothing.
@Suite("Connection faults", .endToEnd)
struct ConnectionFaultTests {
    @Test("GOAWAY after 5 of 20 concurrent pushes: those up to last-stream-id are answered, the rest are not processed; sent again, every push is displayed once")
    func goAwayWithStreamsInFlight() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"]).hex
                let control = harness.control
                #expect(try await control.post("/v1/faults", #"{"kind":"goAway","after":5,"reason":"Shutdown"}"#).status == 200)
                let client = try await harness.connect()
                let jwt = harness.jwt()
                // One push first, so the connection has its token and opens its streams to 1000.
                let first = try await client.send(.push(token: token, payload: #"{"aps":{"alert":"0"}}"#, headers: harness.headers(jwt: jwt)))
                #expect(first.status == 200)
                let answers = await withTaskGroup(of: (Int, Int?).self) { tasks in
                    for number in 1...19 {
                        tasks.addTask {
                            let response = try? await client.send(.push(token: token, payload: #"{"aps":{"alert":"\#(number)"}}"#,
                                                                         headers: harness.headers(jwt: jwt)))
                            return (number, response?.status)
                        }
                    }
                    var answers: [Int: Int?] = [:]
                    for await (number, status) in tasks { answers[number] = status }
                    return answers
                }
                let goAway = try #require(await client.goAway())
                #expect(goAway.debugData == #"{"reason":"Shutdown"}"#)
                let answered = answers.filter { $0.value == 200 }.map(\.key).sorted()
                let unanswered = answers.filter { $0.value == nil }.map(\.key).sorted()
                #expect(answered.count == 4, "five pushes pass before the GOAWAY: the first and four of these; got \(answered)")
                #expect(answered.count + unanswered.count == 19, "every other push is unanswered, none is rejected")

                // Sent again on a new connection, as a provider does with what GOAWAY left unanswered.
                let again = try await harness.connect()
                for number in unanswered {
                    let response = try await again.send(.push(token: token, payload: #"{"aps":{"alert":"\#(number)"}}"#,
                                                              headers: harness.headers(jwt: jwt)))
                    #expect(response.status == 200)
                }
                await again.close()
                let records = try await control.deliveries("token=\(token)&limit=1000", count: 20)
                let bodies = records.compactMap { ($0["content"] as? [String: Any])?["body"] as? String }
                #expect(bodies.sorted() == (0...19).map(String.init).sorted(), "every push displayed exactly once")

                let sends = try #require(try await control.get("/v1/sends?limit=1000").json as? [[String: Any]])
                #expect(sends.contains { $0["method"] as? String == "GOAWAY" && ($0["fault"] as? String)?.hasPrefix("f1 goAway") == true },
                        "the GOAWAY is in /v1/sends")
                let refused = sends.filter { $0["status"] as? Int == 0 && $0["method"] as? String == "POST" }
                #expect((1...unanswered.count).contains(refused.count),
                        "the push that triggered the GOAWAY (and any other the gateway read before it) is recorded with status 0")
                #expect(refused.allSatisfy { ($0["explanation"] as? String)?.contains("above the last stream") == true })
            }
        }
    }

    @Test("Unusable faults of each kind are refused with a sentence naming what is wrong", arguments: [
        (#"{"kind":"goAway","lastStreamId":4}"#, "lastStreamId must be 0 or an odd stream ID"),
        (#"{"kind":"latency"}"#, "a latency fault needs latencyMs"),
        (#"{"kind":"latency","latencyMs":200,"latencyMaxMs":100}"#, "latencyMaxMs must be from latencyMs"),
        (#"{"kind":"tooManyRequests"}"#, "needs perSecond"),
        (#"{"kind":"settings"}"#, "needs maxConcurrentStreams"),
        (#"{"kind":"deviceLink","device":"iphone-dev"}"#, "needs drop: true or latencyMs"),
        (#"{"kind":"clockSkew"}"#, "needs skewSeconds"),
        (#"{"kind":"goAway","at":"tomorrow"}"#, "expected an RFC 3339 time"),
        (#"{"kind":"teleport"}"#, "kind"),
        (#"{"kind":"hang"}"#, "a hang fault needs at: one of handshake, response, window, silence"),
        (#"{"kind":"hang","at":"respond"}"#, "or for a hang fault one of handshake, response, window, silence; found respond"),
        (#"{"kind":"hang","at":"handshake","after":1}"#, "after is for a hang at window or silence"),
        (#"{"kind":"hang","at":"silence","count":2}"#, "count is for a hang at handshake or response"),
        (#"{"kind":"goAway","at":"window"}"#, "at: window is for a hang fault"),
    ])
    func badFaults(_ body: String, _ mention: String) async throws {
        try await withGateway { harness in
            let answer = try await harness.control.post("/v1/faults", body)
            #expect(answer.status == 400)
            let error = try #require((answer.json as? [String: Any])?["error"] as? String)
            #expect(error.contains(mention), "got: \(error)")
            #expect(harness.gateway.faults.pending.isEmpty)
        }
    }
}
