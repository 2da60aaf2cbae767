import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import NIOHTTP2
import Testing

/// Token (JWT) authentication over live connections; time moves on the gateway's injected clock, never by waiting.
@Suite("Token auth", .endToEnd)
struct TokenAuthTests {
    static func alert(_ harness: GatewayHarness, jwt: String, token: String = TestWorld.devToken,
                      topic: String = "com.example.app") -> ProviderRequest {
        .push(token: token, payload: GatewayHarness.alert, headers: harness.headers(jwt: jwt, topic: topic))
    }

    @Test("Raw and DER signatures are both accepted", arguments: [ProviderTokenSigner.SignatureFormat.raw, .der])
    func signatureForms(_ format: ProviderTokenSigner.SignatureFormat) async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let response = try await client.send(Self.alert(harness, jwt: harness.jwt(format: format)))
            #expect(response.status == 200, "\(response.bodyText)")
            await client.close()
        }
    }

    @Test("String iat, extra claims, typ and pretty-printed JSON are tolerated")
    func lenientJWT() async throws {
        try await withGateway { harness in
            let iat = Int(harness.clock.now.timeIntervalSince1970)
            let jwt = TestWorld.signer(TestWorld.teamKey).sign(
                header: "{\n  \"alg\" : \"ES256\",\n  \"kid\" : \"SIMKEY0001\",\n  \"typ\" : \"JWT\"\n}",
                claims: "{\n  \"iss\" : \"SIMTEAM001\",\n  \"iat\" : \"\(iat)\",\n  \"kid\" : \"SIMKEY0001\",\n  \"sub\" : \"extra\"\n}")
            let client = try await harness.connect()
            let response = try await client.send(Self.alert(harness, jwt: jwt))
            #expect(response.status == 200, "\(response.bodyText)")
            await client.close()
        }
    }

    @Test("A token older than an hour is ExpiredProviderToken; the same token is fine before that")
    func expiry() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await client.send(Self.alert(harness, jwt: jwt)).status == 200)
            harness.clock.advance(by: 3599)
            #expect(try await client.send(Self.alert(harness, jwt: jwt)).status == 200)
            harness.clock.advance(by: 2)
            let expired = try await client.send(Self.alert(harness, jwt: jwt))
            #expect(expired.status == 403)
            #expect(expired.reason == "ExpiredProviderToken")
            await client.close()
        }
    }

    @Test("iat far in the future is InvalidProviderToken")
    func futureIssue() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let response = try await client.send(Self.alert(harness, jwt: harness.jwt(issuedAt: harness.clock.now.addingTimeInterval(3600))))
            #expect(response.reason == "InvalidProviderToken")
            await client.close()
        }
    }

    @Test("A new token within 20 minutes is TooManyProviderTokenUpdates; after 20 minutes it is taken")
    func tokenChurn() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            #expect(try await client.send(Self.alert(harness, jwt: harness.jwt())).status == 200)
            harness.clock.advance(by: 60)
            let churn = try await client.send(Self.alert(harness, jwt: harness.jwt()))
            #expect(churn.status == 429)
            #expect(churn.reason == "TooManyProviderTokenUpdates")
            harness.clock.advance(by: 20 * 60)
            #expect(try await client.send(Self.alert(harness, jwt: harness.jwt())).status == 200)
            await client.close()
        }
    }

    @Test("A connection is bound to its first key: an unrelated key is UnrelatedKeyIdInToken, a related one is taken")
    func keyBinding() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            #expect(try await client.send(Self.alert(harness, jwt: harness.jwt())).status == 200)
            harness.clock.advance(by: 21 * 60)
            let other = try await client.send(Self.alert(harness, jwt: harness.jwt(TestWorld.otherTeamKey),
                                                         token: TestWorld.otherTeamToken, topic: "com.other.team"))
            #expect(other.status == 403)
            #expect(other.reason == "UnrelatedKeyIdInToken")
            let unrelated = try await client.send(Self.alert(harness, jwt: harness.jwt(TestWorld.developmentKey)))
            #expect(unrelated.reason == "UnrelatedKeyIdInToken")
            let related = try await client.send(Self.alert(harness, jwt: harness.jwt(TestWorld.relatedKey)))
            #expect(related.status == 200, "\(related.bodyText)")
            // A fresh connection may use any key.
            let fresh = try await harness.connect()
            #expect(try await fresh.send(Self.alert(harness, jwt: harness.jwt(TestWorld.developmentKey))).status == 200)
            await client.close()
            await fresh.close()
        }
    }

    @Test("A topic-specific key pushes to its own topic")
    func topicKey() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let response = try await client.send(Self.alert(harness, jwt: harness.jwt(TestWorld.topicKey),
                                                            token: TestWorld.otherAppToken, topic: "com.example.other"))
            #expect(response.status == 200, "\(response.bodyText)")
            await client.close()
        }
    }

    @Test("One stream until a valid token, then SETTINGS raises MAX_CONCURRENT_STREAMS to 1000")
    func streamLimit() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            #expect(client.remoteSettings[.maxConcurrentStreams] == 1)
            #expect(client.remoteSettings[.headerTableSize] == 4096)
            #expect(client.remoteSettings[.maxHeaderListSize] == 8000)
            #expect(client.remoteSettings[.initialWindowSize] == 65535)
            #expect(client.remoteSettings[.maxFrameSize] == 16384)
            let refused = try await client.send(Self.alert(harness, jwt: "garbage"))
            #expect(refused.reason == "InvalidProviderToken")
            // A valid token in a request that fails for another reason still counts.
            let jwt = harness.jwt()
            let rejected = try await client.send(Self.alert(harness, jwt: jwt, token: TestWorld.goneToken))
            #expect(rejected.status == 410)
            try await client.ping()  // The SETTINGS frame was written before the response; a PING round trip orders it.
            #expect(client.remoteSettings[.maxConcurrentStreams] == 1000)
            // Now many streams at once, with the token the connection already carries.
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 { group.addTask { try await client.send(Self.alert(harness, jwt: jwt)).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 50))
            await client.close()
        }
    }

    @Test("Successes are one HEADERS frame with END_STREAM; apns-id echoed exactly; apns-unique-id on development only")
    func successFraming() async throws {
        try await withGateway { harness in
            let jwt = harness.jwt()
            let development = try await harness.connect(.development)
            let lowercaseID = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
            let echoed = try await development.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                          headers: harness.headers(jwt: jwt, extra: [("apns-id", lowercaseID)])))
            #expect(echoed.status == 200)
            #expect(echoed.frames == [.headers(endStream: true)])
            #expect(echoed["apns-id"] == lowercaseID)
            #expect(echoed["apns-unique-id"].map { UUID(uuidString: $0) != nil && $0 == $0.lowercased() } == true)
            let generated = try await development.send(Self.alert(harness, jwt: jwt))
            let id = try #require(generated["apns-id"])
            #expect(UUID(uuidString: id) != nil && id == id.uppercased())

            let production = try await harness.connect(.production)
            let prod = try await production.send(Self.alert(harness, jwt: jwt, token: TestWorld.prodToken))
            #expect(prod.status == 200)
            #expect(prod["apns-unique-id"] == nil)
            await development.close()
            await production.close()
        }
    }

    @Test("A push is found by its apns-unique-id in the send record and the delivery record, as the Push Notifications Console finds it")
    func foundByUniqueID() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let apnsID = UUID().uuidString
                let answer = try await DeviceDeliveryTests.push(harness, token: token, payload: GatewayHarness.alert, apnsID: apnsID)
                let unique = try #require(answer["apns-unique-id"])
                let control = harness.control
                let sends = try #require(try await control.get("/v1/sends?uniqueId=\(unique)").json as? [[String: Any]])
                #expect(sends.count == 1 && sends.first?["apnsId"] as? String == apnsID && sends.first?["uniqueId"] as? String == unique)
                let deliveries = try await control.deliveries("uniqueId=\(unique.uppercased())")
                #expect(deliveries.count == 1 && deliveries.first?["apnsId"] as? String == apnsID, "\(deliveries)")
                #expect(deliveries.first?["uniqueId"] as? String == unique)
                #expect((try await control.get("/v1/sends?uniqueId=\(UUID().uuidString.lowercased())").json as? [Any])?.isEmpty == true)
            }
        }
    }

    @Test("Variable-length tokens in either case, and a voip body of exactly 5120 bytes, are accepted")
    func acceptedShapes() async throws {
        try await withGateway { harness in
            let client = try await harness.connect()
            let jwt = harness.jwt()
            #expect(try await client.send(Self.alert(harness, jwt: jwt, token: TestWorld.longToken.uppercased())).status == 200)
            let voip = #"{"aps":{"alert":""# + String(repeating: "x", count: 5120 - 20) + #""}}"#
            #expect(voip.utf8.count == 5120)
            let response = try await client.send(.push(token: TestWorld.devToken, payload: voip,
                                                       headers: harness.headers(jwt: jwt, topic: "com.example.app.voip", pushType: "voip")))
            #expect(response.status == 200, "\(response.bodyText)")
            let background = try await client.send(.push(token: TestWorld.devToken, payload: #"{"aps":{"content-available":1}}"#,
                                                          headers: harness.headers(jwt: jwt, pushType: "background", extra: [("apns-priority", "5")])))
            #expect(background.status == 200)
            await client.close()
        }
    }
}
