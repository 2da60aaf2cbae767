import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import Crypto
import Foundation
import Testing

/// Every reason a single request can earn, each through a real TLS + HTTP/2 connection to a live gateway,
/// checking status, reason and Apple's error framing (HEADERS, then one DATA frame that ends the stream).
@Suite("Request reasons", .endToEnd)
struct RequestReasonTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var reason: String
        var environment: APNsEnvironment = .development
        var request: @Sendable (GatewayHarness) -> ProviderRequest
        var testDescription: String { "\(status) \(reason): \(name)" }
    }

    static func push(_ token: String = TestWorld.devToken, payload: String? = GatewayHarness.alert,
                     method: String = "POST", topic: String? = "com.example.app", pushType: String? = "alert",
                     extra: [(name: String, value: String)] = [], jwt: String? = "default") -> @Sendable (GatewayHarness) -> ProviderRequest {
        { harness in
            let bearer: String? = jwt == "default" ? harness.jwt() : jwt
            return .push(token: token, payload: payload, headers: harness.headers(jwt: bearer, topic: topic, pushType: pushType, extra: extra),
                         method: method)
        }
    }

    static let cases: [Case] = [
        Case(name: "apns-collapse-id over 64 bytes", status: 400, reason: "BadCollapseId",
             request: push(extra: [("apns-collapse-id", String(repeating: "é", count: 33))])),
        Case(name: "token with an odd number of digits", status: 400, reason: "BadDeviceToken", request: push("abc")),
        Case(name: "token with non-hex characters", status: 400, reason: "BadDeviceToken", request: push(String(repeating: "zz", count: 32))),
        Case(name: "token nobody holds", status: 400, reason: "BadDeviceToken", request: push(String(repeating: "ab", count: 32))),
        Case(name: "production token on the development endpoint", status: 400, reason: "BadDeviceToken", request: push(TestWorld.prodToken)),
        Case(name: "development token on the production endpoint", status: 400, reason: "BadDeviceToken",
             environment: .production, request: push(TestWorld.devToken)),
        Case(name: "apns-expiration not a number", status: 400, reason: "BadExpirationDate",
             request: push(extra: [("apns-expiration", "tomorrow")])),
        Case(name: "apns-id not a UUID", status: 400, reason: "BadMessageId", request: push(extra: [("apns-id", "not-a-uuid")])),
        Case(name: "apns-priority 7", status: 400, reason: "BadPriority", request: push(extra: [("apns-priority", "7")])),
        Case(name: "background push with priority 10", status: 400, reason: "BadPriority",
             request: push(payload: #"{"aps":{"content-available":1}}"#, pushType: "background", extra: [("apns-priority", "10")])),
        Case(name: "token of another app", status: 400, reason: "DeviceTokenNotForTopic", request: push(TestWorld.otherAppToken)),
        Case(name: "apns-topic twice", status: 400, reason: "DuplicateHeaders", request: push(extra: [("apns-topic", "com.example.app")])),
        Case(name: "unknown apns-push-type", status: 400, reason: "InvalidPushType", request: push(pushType: "shout")),
        Case(name: "voip push to the bare bundle ID", status: 400, reason: "InvalidPushType", request: push(pushType: "voip")),
        Case(name: "alert push to a .voip topic", status: 400, reason: "InvalidPushType", request: push(topic: "com.example.app.voip")),
        Case(name: "no token after /3/device/", status: 400, reason: "MissingDeviceToken", request: push("")),
        Case(name: "token auth without apns-topic", status: 400, reason: "MissingTopic", request: push(topic: nil)),
        Case(name: "no body", status: 400, reason: "PayloadEmpty", request: push(payload: nil)),
        Case(name: "body that is not a JSON object", status: 400, reason: "PayloadEmpty", request: push(payload: "[1,2,3]")),
        Case(name: "expired provider token", status: 403, reason: "ExpiredProviderToken",
             request: { h in let jwt = h.jwt(issuedAt: h.clock.now.addingTimeInterval(-3601))
                 return .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: jwt)) }),
        Case(name: "JWT signed by the wrong key", status: 403, reason: "InvalidProviderToken",
             request: { h in let forged = ProviderTokenSigner(key: P256.Signing.PrivateKey(), keyID: TestWorld.teamKey, teamID: TestWorld.team)
                 return .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: forged.token(issuedAt: h.clock.now))) }),
        Case(name: "JWT with an unknown kid", status: 403, reason: "InvalidProviderToken",
             request: { h in let stranger = ProviderTokenSigner(key: P256.Signing.PrivateKey(), keyID: "NOSUCHKEY1", teamID: TestWorld.team)
                 return .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: stranger.token(issuedAt: h.clock.now))) }),
        Case(name: "JWT with alg HS256", status: 403, reason: "InvalidProviderToken",
             request: { h in let jwt = TestWorld.signer(TestWorld.teamKey).sign(header: #"{"alg":"HS256","kid":"SIMKEY0001"}"#,
                                                                                claims: #"{"iss":"SIMTEAM001","iat":\#(Int(h.clock.now.timeIntervalSince1970))}"#)
                 return .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: jwt)) }),
        Case(name: "authorization that is not a JWT", status: 403, reason: "InvalidProviderToken", request: push(jwt: "garbage")),
        Case(name: "topic of another team", status: 403, reason: "InvalidProviderToken",
             request: push(TestWorld.otherTeamToken, topic: "com.other.team")),
        Case(name: "topic-specific key used for another topic", status: 403, reason: "InvalidProviderToken",
             request: { h in .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: h.jwt(TestWorld.topicKey))) }),
        Case(name: "body of 10 MB (answered before it is read)", status: 413, reason: "PayloadTooLarge",
             request: { h in .init(headers: push()(h).headers, chunks: Array(repeating: Array(repeating: UInt8(ascii: "x"), count: 16_384), count: 640)) }),
        Case(name: "no authorization and no certificate", status: 403, reason: "MissingProviderToken", request: push(jwt: nil)),
        // Order (docs/gateway.md, "Which answer comes first"): the token before the topic's team or key scope; a key's
        // signature and team before its environment.
        Case(name: "a real token of one app, the topic of another team's app", status: 400, reason: "DeviceTokenNotForTopic",
             request: push(topic: "com.other.team")),
        Case(name: "another team's token and topic, a key of this team", status: 403, reason: "InvalidProviderToken",
             request: push(TestWorld.otherTeamToken, topic: "com.other.team")),
        Case(name: "a production-only key's ID on development, signed by another key", status: 403, reason: "InvalidProviderToken",
             request: { h in
                 let forged = ProviderTokenSigner(key: TestWorld.privateKeys[TestWorld.teamKey]!, keyID: TestWorld.productionKey,
                                                  teamID: TestWorld.team).token(issuedAt: h.clock.now)
                 return .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: forged)) }),
        Case(name: "production-only key on the development endpoint", status: 403, reason: "BadEnvironmentKeyIdInToken",
             request: { h in .push(token: TestWorld.devToken, payload: GatewayHarness.alert, headers: h.headers(jwt: h.jwt(TestWorld.productionKey))) }),
        Case(name: "development-only key on the production endpoint", status: 403, reason: "BadEnvironmentKeyIdInToken",
             environment: .production,
             request: { h in .push(token: TestWorld.prodToken, payload: GatewayHarness.alert, headers: h.headers(jwt: h.jwt(TestWorld.developmentKey))) }),
        Case(name: "path that is not /3/device/", status: 404, reason: "BadPath",
             request: { h in var r = push()(h); r.headers[2] = (":path", "/3/devices/\(TestWorld.devToken)"); return r }),
        Case(name: "GET instead of POST", status: 405, reason: "MethodNotAllowed", request: push(payload: nil, method: "GET")),
        Case(name: "expired device token", status: 410, reason: "ExpiredToken", request: push(TestWorld.expiredToken)),
        Case(name: "unregistered device token", status: 410, reason: "Unregistered", request: push(TestWorld.goneToken)),
        Case(name: "alert body of 4097 bytes", status: 413, reason: "PayloadTooLarge",
             request: push(payload: #"{"aps":{"alert":""# + String(repeating: "x", count: 4097 - 20) + #""}}"#)),
        Case(name: "voip body of 5121 bytes", status: 413, reason: "PayloadTooLarge",
             request: push(payload: #"{"aps":{"alert":""# + String(repeating: "x", count: 5121 - 20) + #""}}"#,
                           topic: "com.example.app.voip", pushType: "voip")),
    ]

    @Test("Each rejection has Apple's status, reason and framing", arguments: cases)
    func rejection(_ testCase: Case) async throws {
        try await withGateway { harness in
            let client = try await harness.connect(testCase.environment)
            let request = testCase.request(harness)
            let response = try await client.send(request)
            #expect(response.status == testCase.status)
            #expect(response.reason == testCase.reason, "body: \(response.bodyText)")
            #expect(response["content-type"] == "application/json")
            #expect(response.frames.first == .headers(endStream: false))
            let dataFrames = response.frames.filter { if case .data = $0 { true } else { false } }
            #expect(dataFrames.count == 1, "the error body travels in exactly one DATA frame")
            #expect(response.frames.last.map { if case .data(_, true) = $0 { true } else { false } } == true)
            if testCase.status == 410 {
                #expect(response.bodyText.contains(#""timestamp":1767225600123"#), "410 carries the time in milliseconds")
            } else {
                #expect(!response.bodyText.contains("timestamp"))
            }
            // The echo of apns-id: as sent, or generated in upper case.
            let sentID = request.headers.first { $0.name == "apns-id" }?.value
            if let sentID { #expect(response["apns-id"] == sentID) } else { #expect(response["apns-id"] == response["apns-id"]?.uppercased()) }
            // The verdict is recorded with a sentence for humans.
            let recorded = try await harness.sends().first
            #expect(recorded?.status == testCase.status)
            #expect(recorded?.reason == testCase.reason)
            #expect(recorded?.explanation?.isEmpty == false)
            await client.close()
        }
    }

    /// Apple's table spells it `BadEnvironmentKeyIdInToken`; clients report the wire saying `BadEnvironmentKeyInToken`.
    /// A gateway answers with the one it is set to, so a client's handling of each is tested against a live gateway.
    @Test("A key of the other environment is refused with the spelling the gateway is set to",
          arguments: [RejectionReason.badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken])
    func environmentKeySpelling(_ reason: RejectionReason) async throws {
        try await withGateway({ $0.tokenSession.environmentKeyReason = reason }) { harness in
            let client = try await harness.connect(.development)
            let response = try await client.send(.push(token: TestWorld.devToken, payload: GatewayHarness.alert,
                                                        headers: harness.headers(jwt: harness.jwt(TestWorld.productionKey))))
            #expect(response.status == 403)
            #expect(response.reason == reason.rawValue, "body: \(response.bodyText)")
            #expect(try await harness.sends().first?.reason == reason.rawValue)
            await client.close()
        }
    }
}
