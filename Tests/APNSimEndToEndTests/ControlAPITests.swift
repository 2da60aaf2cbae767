import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Crypto
import Foundation
import NIOHTTP1
import Testing

/// The control API over real HTTP, driven the way a test in any language would drive it.
@Suite("Control API", .endToEnd)
struct ControlAPITests {
    static func push(_ harness: GatewayHarness, _ client: ProviderClient, token: String = TestWorld.devToken, jwt: String) async throws -> ProviderResponse {
        try await client.send(.push(token: token, payload: GatewayHarness.alert, headers: harness.headers(jwt: jwt)))
    }

    @Test("With a record limit the oldest sends go and health counts them")
    func recordLimit() async throws {
        try await withGateway({ $0.records.sends = 10 }) { harness in
            let client = try await harness.connect()
            let jwt = harness.jwt()
            for _ in 0..<40 { #expect(try await Self.push(harness, client, jwt: jwt).status == 200) }
            let health = try #require(try await harness.control.get("/v1/health").json as? [String: Any])
            let kept = try #require(health["sends"] as? Int)
            #expect(kept <= 11)
            #expect(kept + (health["droppedSends"] as? Int ?? -1) == 40)
            #expect(health["droppedDeliveries"] as? Int == 0)
            await client.close()
        }
    }

    @Test("Bad query values are a 400 with a sentence naming the value", arguments: [
        "/v1/sends?limit=0", "/v1/sends?limit=99999999999999999999", "/v1/sends?status=abc", "/v1/sends?since=1e400",
        "/v1/sends?after=1e400", "/v1/sends?before=yesterday", "/v1/deliveries?wait=nan", "/v1/deliveries?wait=1e300",
        "/v1/deliveries?after=inf", "/v1/deliveries?limit=-1", "/v1/interactions?wait=61", "/v1/interactions?count=0",
    ])
    func badQueries(_ path: String) async throws {
        try await withGateway { harness in
            let answer = try await harness.control.get(path)
            #expect(answer.status == 400)
            let error = try #require((answer.json as? [String: Any])?["error"] as? String)
            let value = String(path.split(separator: "=").last!)
            #expect(error.contains("got \(value)"), "\(error)")
        }
    }

    @Test("An install's wait out of range is a 400 naming it, before anything is sent to the device",
          arguments: ["0", "-1", "601", "nan", "soon"])
    func badInstallWait(_ wait: String) async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let answer = try await harness.control
                    .post("/v1/devices/device-1/apps?wait=\(wait)", #"{"bundleID":"com.example.other","team":"SIMTEAM001"}"#)
                #expect(answer.status == 400)
                #expect((answer.json as? [String: Any])?["error"] as? String
                        == "wait must be a number of seconds above 0 and up to 600; got \(wait)")
                #expect(device.tokens["com.example.other"] == nil, "nothing was installed")
            }
        }
    }

    @Test("health, sends with filters, reset")
    func sendsAndReset() async throws {
        try await withGateway { harness in
            let control = harness.control
            let health = try await control.get("/v1/health")
            #expect(health.status == 200)
            #expect((health.json as? [String: Any])?["status"] as? String == "ok")

            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await Self.push(harness, client, jwt: jwt).status == 200)
            #expect(try await Self.push(harness, client, token: TestWorld.goneToken, jwt: jwt).status == 410)
            harness.clock.advance(by: 1.5)
            #expect(try await Self.push(harness, client, token: TestWorld.devToken.uppercased(), jwt: jwt).status == 200)

            let all = try #require(try await control.get("/v1/sends").json as? [[String: Any]])
            #expect(all.count == 3)
            #expect(all.first?["token"] as? String == TestWorld.devToken, "newest first, tokens in lower case")
            let accepted = try #require(try await control.get("/v1/sends?status=200").json as? [[String: Any]])
            #expect(accepted.count == 2)
            let gone = try #require(try await control.get("/v1/sends?token=\(TestWorld.goneToken)").json as? [[String: Any]])
            #expect(gone.count == 1)
            #expect(gone.first?["reason"] as? String == "Unregistered")
            #expect((gone.first?["explanation"] as? String)?.isEmpty == false)
            #expect((gone.first?["headers"] as? [String: String])?["authorization"]?.hasSuffix(".<signature>") == true,
                    "the JWT signature is not kept")
            // Times are RFC 3339 in UTC with milliseconds, and a time given back in that form filters.
            let receivedAt = try #require(all.first?["receivedAt"] as? String)
            #expect(receivedAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "got \(receivedAt)")
            let sinceNewest = try #require(try await control.get("/v1/sends?since=\(receivedAt)").json as? [[String: Any]])
            #expect(sinceNewest.count == 1, "only the push sent 1.5 s after the others (since=, the old spelling: at or after)")
            let newest = try #require(ControlJSON.date(receivedAt))
            let justBefore = Int((newest.timeIntervalSince1970 * 1000).rounded(.down)) - 1
            let afterNewest = try #require(try await control.get("/v1/sends?after=\(justBefore)").json as? [[String: Any]])
            #expect(afterNewest.count == 1, "after= a millisecond before the newest: only it")
            let beforeNewest = try #require(try await control.get("/v1/sends?before=\(receivedAt)").json as? [[String: Any]])
            #expect(beforeNewest.count == 2, "before= the newest's time: the two sent 1.5 s earlier")
            let limited = try #require(try await control.get("/v1/sends?limit=1").json as? [[String: Any]])
            #expect(limited.count == 1)
            let future = Int((Date().timeIntervalSince1970 + 3600) * 1000)
            let none = try #require(try await control.get("/v1/sends?after=\(future)").json as? [[String: Any]])
            #expect(none.isEmpty)
            #expect(try await control.get("/v1/sends?status=abc").status == 400)

            #expect(try await control.post("/v1/reset").status == 200)
            let afterReset = try #require(try await control.get("/v1/sends").json as? [[String: Any]])
            #expect(afterReset.isEmpty)
            await client.close()
        }
    }

    /// Adds `count` development tokens of com.example.app by `seed` through `POST /v1/tokens`.
    private static func addTokenSet(_ control: ControlClient, count: Int, seed: Int) async throws {
        let body = #"{"count":\#(count),"seed":\#(seed),"bundleID":"com.example.app","environment":"development"}"#
        let added = try await control.post("/v1/tokens", body)
        #expect(added.status == 200, "\(added.json)")
    }

    @Test("A token set added through /v1/tokens: its tokens are answered 200, the next token of its seed is not; a bad set is refused")
    func tokenSet() async throws {
        try await withGateway { harness in
            let control = harness.control
            try await Self.addTokenSet(control, count: 5000, seed: 7)
            let tokens = TokenSet(count: 5001, seed: 7, bundleID: "com.example.app", environment: .development).tokens
            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await Self.push(harness, client, token: tokens[0].hex, jwt: jwt).status == 200)
            #expect(try await Self.push(harness, client, token: tokens[4999].hex, jwt: jwt).status == 200)
            #expect(try await Self.push(harness, client, token: tokens[5000].hex, jwt: jwt).reason == "BadDeviceToken")
            await client.close()
            let refused = try await control.post("/v1/tokens", #"{"count":0,"seed":7,"bundleID":"com.example.app","environment":"development"}"#)
            #expect(refused.status == 400)
            #expect(((refused.json as? [String: Any])?["error"] as? String)?.contains("count 0") == true, "\(refused.json)")
            // Refused before a token is made: a million for an app the world does not declare would take seconds.
            let stranger = try await control.post("/v1/tokens", #"{"count":1000000,"seed":7,"bundleID":"com.example.unknown","environment":"development"}"#)
            #expect(stranger.status == 400)
            #expect(((stranger.json as? [String: Any])?["error"] as? String)?.contains("names app com.example.unknown") == true, "\(stranger.json)")
        }
    }

    @Test("GET /v1/tokens pages through the world's tokens in hex order, each page linking the next; a bad page is refused")
    func tokenPages() async throws {
        try await withGateway { harness in
            let control = harness.control
            try await Self.addTokenSet(control, count: 2500, seed: 11)
            let whole = try #require(try await control.get("/v1/tokens?limit=10000").json as? [[String: Any]]).compactMap { $0["token"] as? String }
            #expect(whole.count >= 2500 && whole == whole.sorted(), "one page of them all, in hex order")
            var paged: [String] = [], next: String? = "/v1/tokens?limit=1000", pages = 0
            while let path = next {
                let page = try await control.get(path)
                #expect(page.status == 200, "\(page.json)")
                paged += (page.json as? [[String: Any]] ?? []).compactMap { $0["token"] as? String }
                pages += 1
                next = page.headers.first(name: "link").flatMap { link in
                    link.hasSuffix(#">; rel="next""#) && link.hasPrefix("<") ? String(link.dropFirst().prefix { $0 != ">" }) : nil
                }
                if pages > 10 { break }
            }
            #expect(paged == whole, "the pages, one after the other, are the tokens once each in order")
            #expect(pages == (whole.count + 999) / 1000)
            for (query, says) in [("limit=0", "limit must be a positive whole number"), ("limit=10001", "limit takes 1 to 10000"),
                                  ("cursor=xyz", "cursor must be a token"), ("after=xyz", "cursor must be a token"),
                                  ("page=2", "unknown query parameter page")] {
                let refused = try await control.get("/v1/tokens?\(query)")
                #expect(refused.status == 400)
                #expect(((refused.json as? [String: Any])?["error"] as? String)?.contains(says) == true, "\(query): \(refused.json)")
            }
        }
    }

    @Test("Tokens added, unregistered and reset through /v1/tokens change what the gateway answers")
    func tokens() async throws {
        try await withGateway { harness in
            let control = harness.control
            let fresh = String(repeating: "9a", count: 32)
            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await Self.push(harness, client, token: fresh, jwt: jwt).reason == "BadDeviceToken")

            let added = try await control.post("/v1/tokens", #"[{"token":"\#(fresh)","bundleID":"com.example.app","environment":"development","state":"active"}]"#)
            #expect(added.status == 200)
            #expect(try await Self.push(harness, client, token: fresh, jwt: jwt).status == 200)

            harness.clock.advance(by: 10)
            let unregisteredAt = harness.clock.now
            _ = try await control.post("/v1/tokens", #"[{"token":"\#(fresh)","bundleID":"com.example.app","environment":"development","state":"unregistered"}]"#)
            let gone = try await Self.push(harness, client, token: fresh, jwt: jwt)
            #expect(gone.status == 410)
            #expect(gone.bodyText.contains(#""timestamp":\#(Int64((unregisteredAt.timeIntervalSince1970 * 1000).rounded()))"#),
                    "the 410 timestamp is when the token was unregistered: \(gone.bodyText)")

            let listed = try #require(try await control.get("/v1/tokens").json as? [[String: Any]])
            #expect(listed.contains { $0["token"] as? String == fresh && $0["state"] as? String == "unregistered" })

            _ = try await control.post("/v1/reset")
            #expect(try await Self.push(harness, client, token: fresh, jwt: jwt).reason == "BadDeviceToken", "reset restores the loaded world")
            await client.close()
        }
    }

    @Test("Bad bodies are refused with a sentence and change nothing", arguments: [
        ("/v1/tokens", "not json"),
        ("/v1/tokens", #"[{"token":"xyz","bundleID":"com.example.app","environment":"development","state":"active"}]"#),
        ("/v1/tokens", #"[{"token":"\#(String(repeating: "9b", count: 32))","bundleID":"com.nobody","environment":"development","state":"active"}]"#),
        ("/v1/tokens", #"[{"token":"\#(String(repeating: "9b", count: 32))","bundleID":"com.example.app","environment":"staging","state":"active"}]"#),
        ("/v1/apps", #"[{"bundleID":"com.new.app","team":"NOSUCHTEAM"}]"#),
        ("/v1/keys", #"[{"id":"NEWKEY0001","team":"SIMTEAM001","publicKey":"not a pem"}]"#),
    ])
    func badBodies(_ path: String, _ body: String) async throws {
        try await withGateway { harness in
            let control = harness.control
            let before = harness.gateway.world.snapshot
            let answer = try await control.post(path, body)
            #expect(answer.status == 400)
            #expect(((answer.json as? [String: Any])?["error"] as? String)?.isEmpty == false)
            let after = harness.gateway.world.snapshot
            #expect(after.tokens == before.tokens)
            #expect(after.apps == before.apps)
            #expect(after.keys.keys.sorted() == before.keys.keys.sorted())
        }
    }

    @Test("A key and an app added through the API can be used at once")
    func keysAndApps() async throws {
        try await withGateway { harness in
            let control = harness.control
            let key = P256.Signing.PrivateKey()
            let pem = key.publicKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
            #expect(try await control.post("/v1/teams", #"[{"id":"NEWTEAM001"}]"#).status == 200)
            #expect(try await control.post("/v1/keys", #"[{"id":"NEWKEY0001","team":"NEWTEAM001","scope":"development","publicKey":"\#(pem)"}]"#).status == 200)
            #expect(try await control.post("/v1/apps", #"[{"bundleID":"com.new.app","team":"NEWTEAM001"}]"#).status == 200)
            let token = String(repeating: "7c", count: 32)
            #expect(try await control.post("/v1/tokens", #"[{"token":"\#(token)","bundleID":"com.new.app","environment":"development","state":"active"}]"#).status == 200)
            let keys = try #require(try await control.get("/v1/keys").json as? [[String: Any]])
            #expect(keys.contains { $0["id"] as? String == "NEWKEY0001" && ($0["publicKey"] as? String)?.contains("BEGIN PUBLIC KEY") == true })

            let client = try await harness.connect()
            let signer = ProviderTokenSigner(key: key, keyID: "NEWKEY0001", teamID: "NEWTEAM001")
            let response = try await client.send(.push(token: token, payload: GatewayHarness.alert,
                                                       headers: harness.headers(jwt: signer.token(issuedAt: harness.clock.now), topic: "com.new.app")))
            #expect(response.status == 200, "\(response.bodyText)")
            await client.close()
        }
    }

    @Test("An app whose bundle ID is empty or holds what Apple's do not is a 400 naming it, and nothing changes", arguments: [
        ("", "an app's bundleID is empty; give one such as com.example.app"),
        ("com.example/app", #"app "com.example/app": a bundle ID holds only A–Z, a–z, 0–9, hyphens and periods"#),
        ("com.exämple.app", #"app "com.exämple.app": a bundle ID holds only A–Z, a–z, 0–9, hyphens and periods"#),
    ])
    func badBundleIDs(_ bundleID: String, _ sentence: String) async throws {
        try await withGateway { harness in
            let control = harness.control
            let answer = try await control.post("/v1/apps", #"[{"bundleID":"\#(bundleID)","team":"\#(TestWorld.team)"}]"#)
            #expect(answer.status == 400)
            #expect((answer.json as? [String: Any])?["error"] as? String == sentence + "; nothing was changed")
            let apps = try #require(try await control.get("/v1/apps").json as? [[String: Any]])
            #expect(!apps.contains { $0["bundleID"] as? String == bundleID })
        }
    }
}
