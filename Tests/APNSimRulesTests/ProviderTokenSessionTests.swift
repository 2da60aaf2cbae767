@testable import APNSimRules
import APNSimProvider
import Crypto
import Foundation
import Testing

/// The token-auth state machine, driven by hand-picked times.
@Suite("ProviderTokenSession")
struct ProviderTokenSessionTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let teamKey = P256.Signing.PrivateKey()
    static let otherKey = P256.Signing.PrivateKey()

    static let keys: [String: ProviderKey] = [
        "KEY0000001": ProviderKey(id: "KEY0000001", team: "TEAM000001", publicKey: teamKey.publicKey),
        "KEY0000002": ProviderKey(id: "KEY0000002", team: "TEAM000001", scope: .production, publicKey: otherKey.publicKey),
    ]

    static func token(_ key: P256.Signing.PrivateKey = teamKey, id: String = "KEY0000001", at date: Date) -> String {
        "bearer " + ProviderTokenSigner(key: key, keyID: id, teamID: "TEAM000001").token(issuedAt: date)
    }

    @Test("Lifetime, churn and binding in one session")
    func lifecycle() {
        var session = ProviderTokenSession()
        let first = Self.token(at: Self.start)
        #expect(!session.hasAcceptedToken)
        #expect((try? session.authorize(first, environment: .development, keys: Self.keys, now: Self.start).get()) != nil)
        #expect(session.hasAcceptedToken)
        #expect(session.boundKeyID == "KEY0000001")

        let second = Self.token(at: Self.start.addingTimeInterval(60))
        let churn = session.authorize(second, environment: .development, keys: Self.keys, now: Self.start.addingTimeInterval(60))
        #expect(churn.failureReason == .tooManyProviderTokenUpdates)

        let late = Self.start.addingTimeInterval(3601)
        #expect(session.authorize(first, environment: .development, keys: Self.keys, now: late).failureReason == .expiredProviderToken)
        let fresh = Self.token(at: late)
        #expect((try? session.authorize(fresh, environment: .development, keys: Self.keys, now: late).get()) != nil)
    }

    @Test("A production-scoped key on development is BadEnvironmentKeyIdInToken, before binding is checked")
    func environmentScope() {
        var session = ProviderTokenSession()
        let result = session.authorize(Self.token(Self.otherKey, id: "KEY0000002", at: Self.start), environment: .development,
                                       keys: Self.keys, now: Self.start)
        #expect(result.failureReason == .badEnvironmentKeyIdInToken)
        #expect(!session.hasAcceptedToken)
    }

    @Test("The environment-key refusal takes the spelling configured", arguments: [RejectionReason.badEnvironmentKeyInToken, .badEnvironmentKeyIdInToken])
    func environmentKeySpelling(_ reason: RejectionReason) {
        var configuration = ProviderTokenSession.Configuration()
        configuration.environmentKeyReason = reason
        var session = ProviderTokenSession(configuration: configuration)
        let result = session.authorize(Self.token(Self.otherKey, id: "KEY0000002", at: Self.start), environment: .development,
                                       keys: Self.keys, now: Self.start)
        #expect(result.failureReason == reason)
    }

    @Test("Missing, empty and malformed authorization", arguments: [
        (nil, RejectionReason.missingProviderToken), ("", .missingProviderToken), ("bearer ", .missingProviderToken),
        ("basic abc", .invalidProviderToken), ("bearer a.b", .invalidProviderToken), ("bearer a.b.c", .invalidProviderToken),
    ] as [(String?, RejectionReason)])
    func malformed(_ header: String?, _ reason: RejectionReason) {
        var session = ProviderTokenSession()
        #expect(session.authorize(header, environment: .development, keys: Self.keys, now: Self.start).failureReason == reason)
    }

    /// Each of these trapped the gateway ("Double value cannot be converted to Int") or, for NaN, never expired.
    @Test("An iat that is not a time is InvalidProviderToken and names the value", arguments: [
        ("1e19", "1e+19"), ("-1e300", "-1e+300"), (#""inf""#, #""inf""#), (#""-inf""#, #""-inf""#), (#""nan""#, #""nan""#),
        (#""1e19""#, #""1e19""#), ("-5", "-5.0"), (#""0x10""#, #""0x10""#), ("253402300800", "253402300800.0"),
        (#""99999999999999999999999""#, #""99999999999999999999999""#), ("{}", "(neither a number nor a string)"),
    ])
    func iatOutOfRange(_ iat: String, _ shown: String) {
        var session = ProviderTokenSession()
        let jwt = ProviderTokenSigner(key: Self.teamKey, keyID: "KEY0000001", teamID: "TEAM000001")
            .sign(header: #"{"alg":"ES256","kid":"KEY0000001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#)
        let result = session.authorize("bearer " + jwt, environment: .development, keys: Self.keys, now: Self.start)
        guard case .failure(let rejection) = result else {
            Issue.record("iat \(iat) was accepted")
            return
        }
        #expect(rejection.reason == .invalidProviderToken)
        #expect(rejection.explanation.contains("iat \(shown) is not a time"), "\(rejection.explanation)")
    }

    @Test("An iat in range but old is ExpiredProviderToken; 0 and a fraction are read as times")
    func iatInRange() {
        for (iat, reason) in [("0", RejectionReason.expiredProviderToken), (#""0""#, .expiredProviderToken),
                              ("\(Self.start.timeIntervalSince1970 - 0.5)", nil), (#""\#(Int(Self.start.timeIntervalSince1970))""#, nil)] {
            var session = ProviderTokenSession()
            let jwt = ProviderTokenSigner(key: Self.teamKey, keyID: "KEY0000001", teamID: "TEAM000001")
                .sign(header: #"{"alg":"ES256","kid":"KEY0000001"}"#, claims: #"{"iss":"TEAM000001","iat":\#(iat)}"#)
            #expect(session.authorize("bearer " + jwt, environment: .development, keys: Self.keys, now: Self.start).failureReason == reason,
                    "iat \(iat)")
        }
    }
}

extension Result where Failure == Rejection {
    var failureReason: RejectionReason? {
        if case .failure(let rejection) = self { return rejection.reason }
        return nil
    }
}
