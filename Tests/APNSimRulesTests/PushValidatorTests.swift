@testable import APNSimRules
import Crypto
import Foundation
import Testing

/// The validator as a pure function: no sockets, no clock but the one passed in.
@Suite("PushValidator")
struct PushValidatorTests {
    static let key = P256.Signing.PrivateKey()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = String(repeating: "ab", count: 32)

    static var world: World {
        var world = World()
        world.teams["TEAM000001"] = .init(id: "TEAM000001")
        world.keys["KEY0000001"] = ProviderKey(id: "KEY0000001", team: "TEAM000001", publicKey: key.publicKey)
        world.apps["com.example.app"] = .init(bundleID: "com.example.app", team: "TEAM000001")
        world.tokens[DeviceToken(token)!] = .init(token: DeviceToken(token)!, bundleID: "com.example.app", environment: .development)
        return world
    }

    static func jwt() -> String {
        let input = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY0000001"}"#.utf8)) + "." +
            Base64URL.encode(Data(#"{"iss":"TEAM000001","iat":\#(Int(now.timeIntervalSince1970))}"#.utf8))
        return input + "." + Base64URL.encode(try! key.signature(for: Data(input.utf8)).rawRepresentation)
    }

    static func head(_ overrides: [(String, String?)]) -> PushRequestHead {
        var headers: [(name: String, value: String)] = [
            (":method", "POST"), (":path", "/3/device/\(token)"), (":scheme", "https"),
            ("authorization", "bearer \(jwt())"), ("apns-topic", "com.example.app"), ("apns-push-type", "alert"),
        ]
        for (name, value) in overrides {
            headers.removeAll { $0.name == name }
            if let value { headers.append((name, value)) }
        }
        return PushRequestHead(headers: headers)
    }

    static func validate(_ head: PushRequestHead, auth: ConnectionAuth = .token(ProviderTokenSession())) -> Result<PushPlan, Rejection> {
        var auth = auth
        return PushValidator().validateHead(head, environment: .development, auth: &auth, world: world, now: now)
    }

    @Test("A well-formed request passes, with defaults filled in")
    func accepts() throws {
        let plan = try Self.validate(Self.head([])).get()
        #expect(plan.priority == 10)
        #expect(plan.expiration == .storeByDefault)
        #expect(plan.pushType == .alert)
        #expect(plan.payloadLimit == 4096)
        #expect(plan.apnsID == nil)
    }

    @Test("A repeated header is named by its second appearance; pseudo-headers are HTTP/2's to police")
    func duplicateHeaders() {
        func duplicate(_ names: [String]) -> String? {
            PushRequestHead(headers: names.map { ($0, "x") }).firstDuplicateHeader
        }
        #expect(duplicate([]) == nil)
        #expect(duplicate(["apns-topic"]) == nil)
        #expect(duplicate([":method", ":path", "apns-topic", "apns-id", "apns-priority"]) == nil)
        #expect(duplicate([":path", ":path", "apns-topic"]) == nil)
        #expect(duplicate(["apns-topic", "apns-id", "apns-id", "apns-topic"]) == "apns-id")
        #expect(duplicate(["apns-topic", ":path", "apns-priority", "apns-topic"]) == "apns-topic")
        #expect(duplicate(["apns-id", "apns-ie", "apns-id"]) == "apns-id", "names of one length are compared whole")
    }

    @Test("Without apns-push-type the type follows the topic suffix")
    func inference() throws {
        let plan = try Self.validate(Self.head([("apns-push-type", nil), ("apns-topic", "com.example.app.voip")])).get()
        #expect(plan.pushType == .voip)
        #expect(plan.bundleID == "com.example.app")
        #expect(plan.payloadLimit == 5120)
    }

    @Test("When several rules fail, the earliest in the documented order wins", arguments: [
        ([("apns-id", "nope"), (":method", "GET")], "BadMessageId"),
        ([(":method", "GET"), (":path", "/elsewhere")], "MethodNotAllowed"),
        ([(":path", "/elsewhere"), ("apns-topic", nil)], "BadPath"),
        ([("apns-topic", nil), ("apns-priority", "3")], "MissingTopic"),
        ([("apns-collapse-id", String(repeating: "c", count: 65)), ("apns-priority", "3")], "BadCollapseId"),
        ([("apns-priority", "3"), ("apns-push-type", "bogus")], "BadPriority"),
        ([("apns-push-type", "bogus"), ("apns-expiration", "x")], "InvalidPushType"),
        ([("apns-expiration", "x"), (":path", "/3/device/zz")], "BadExpirationDate"),
        ([(":path", "/3/device/zz"), ("authorization", nil)], "BadDeviceToken"),
        ([("authorization", nil)], "MissingProviderToken"),
    ] as [([(String, String?)], String)])
    func order(_ overrides: [(String, String?)], _ expected: String) {
        guard case .failure(let rejection) = Self.validate(Self.head(overrides)) else {
            Issue.record("expected \(expected), got acceptance")
            return
        }
        #expect(rejection.reason.rawValue == expected)
    }

    @Test("Apple's silent cases follow the configuration")
    func configurable() {
        var validator = PushValidator()
        let background = Self.head([("apns-push-type", "background"), ("apns-priority", "10")])
        var auth = ConnectionAuth.token(ProviderTokenSession())
        #expect(validator.validateHead(background, environment: .development, auth: &auth, world: Self.world, now: Self.now).failureReason == .badPriority)
        validator.configuration.rejectBackgroundPriority10 = false
        auth = .token(ProviderTokenSession())
        #expect((try? validator.validateHead(background, environment: .development, auth: &auth, world: Self.world, now: Self.now).get()) != nil)

        let plan = try! Self.validate(Self.head([])).get()
        #expect(PushValidator().validateBody(Array("nope".utf8), plan: plan)?.reason == .payloadEmpty)
        validator.configuration.rejectMalformedPayload = false
        #expect(validator.validateBody(Array("nope".utf8), plan: plan) == nil)

        let unknown = Self.head([(":path", "/3/device/\(String(repeating: "cd", count: 32))")])
        #expect(Self.validate(unknown).failureReason == .badDeviceToken)
        validator.configuration.acceptUnknownDeviceTokens = true
        auth = .token(ProviderTokenSession())  // each head carries a freshly signed JWT; a new session avoids churn
        #expect((try? validator.validateHead(unknown, environment: .development, auth: &auth, world: Self.world, now: Self.now).get()) != nil)
    }

    @Test("apns-expiration: 0 is once, a time is kept, a negative number is refused")
    func expiration() throws {
        #expect(try Self.validate(Self.head([("apns-expiration", "0")])).get().expiration == .once)
        #expect(try Self.validate(Self.head([("apns-expiration", "1900000000")])).get().expiration
                == .until(Date(timeIntervalSince1970: 1_900_000_000)))
        guard case .failure(let rejection) = Self.validate(Self.head([("apns-expiration", "-5")])) else {
            Issue.record("negative expiration accepted")
            return
        }
        #expect(rejection.reason == .badExpirationDate)
    }

    @Test("Error bodies are compact JSON; 410 adds the timestamp in milliseconds")
    func bodies() {
        #expect(Rejection(.badTopic, "x").responseBody == #"{"reason":"BadTopic"}"#)
        #expect(Rejection(.unregistered, "x", invalidSince: Date(timeIntervalSince1970: 1.5)).responseBody
                == #"{"reason":"Unregistered","timestamp":1500}"#)
    }
}

extension PushValidatorTests {
    /// A 410's sentence says why in words that fit the token: only a token a device held had an app that was removed.
    @Test("An unregistered token's 410 names the removal only for a token whose app was removed from a device")
    func unregisteredWhy() throws {
        let token = DeviceToken(Self.token)!
        func why(_ change: (inout World.TokenRecord) -> Void) -> String? {
            var world = Self.world
            var record = world.tokens[token]!
            (record.state, record.invalidSince) = (.unregistered, Self.now.addingTimeInterval(-60))
            change(&record)
            world.tokens[token] = record
            var auth = ConnectionAuth.token(ProviderTokenSession())
            guard case .failure(let rejection) = PushValidator().validateHead(Self.head([]), environment: .development, auth: &auth,
                                                                               world: world, now: Self.now) else { return nil }
            return rejection.reason == .unregistered ? rejection.explanation : nil
        }
        #expect(why { _ in }?.contains("the world declares it unregistered") == true)
        #expect(why { $0.kind = .device; $0.holder = .removed(from: "iphone-1", at: Self.now) }?.contains("the app was removed from device iphone-1") == true)
        #expect(why { _ in }?.contains("removed") == false)
    }
}
