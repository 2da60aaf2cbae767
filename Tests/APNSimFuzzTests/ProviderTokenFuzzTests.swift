import APNSimRules
import APNSimProvider
import Foundation
import Testing

/// `authorization` headers, mutated two ways: the compact JWT text itself, and the header and claims JSON
/// before signing with the world's real key, so mutants with odd claims (an `iat` of `1e19`, `"inf"`, a nested
/// object) pass the signature check and reach every later rule.
extension Fuzz {
    @Suite("Fuzz: provider tokens")
    struct ProviderTokenFuzzTests {
        static let header = #"{"alg":"ES256","kid":"SIMKEY0001"}"#
        static let claims = [#"{"iss":"SIMTEAM001","iat":1800000000}"#, #"{"iss":"SIMTEAM001","iat":"1800000000","kid":"SIMKEY0001"}"#,
                             "{\n  \"iss\" : \"SIMTEAM001\",\n  \"iat\" : 1799999000.5\n}"]

        @Test("Seeded mutated tokens: every one accepted or refused with a sentence")
        func mutatedTokens() async {
            var mutator = Mutator(seed: 0x5EED_0002, corpus: ([Self.header] + Self.claims + ["bearer \(FuzzFixtures.jwt)"]).map { Array($0.utf8) })
            var tally = FuzzTally(name: "ProviderTokenSession")
            let keys = FuzzFixtures.world.keys
            // One session across many tokens, as on a long-lived connection, and a fresh one now and then.
            var session = ProviderTokenSession()
            for iteration in 0..<fuzzIterations {
                if iteration % 1000 == 0 { await Task.yield() }  // let the other tests run
                if iteration % 100 == 0 { session = ProviderTokenSession() }
                let authorization: String?
                switch mutator.below(3) {
                case 0:
                    authorization = String(decoding: mutator.mutate(Array("bearer \(FuzzFixtures.jwt)".utf8)), as: UTF8.self)
                case 1:
                    let header = mutator.chance(20) ? String(decoding: mutator.mutate(Array(Self.header.utf8)), as: UTF8.self) : Self.header
                    let claims = String(decoding: mutator.mutate(Array(Self.claims[mutator.below(Self.claims.count)].utf8)), as: UTF8.self)
                    authorization = "bearer " + FuzzFixtures.signer.sign(header: header, claims: claims, format: mutator.chance(50) ? .raw : .der)
                default:
                    authorization = mutator.chance(5) ? nil : String(decoding: mutator.mutant(), as: UTF8.self)
                }
                // Time moves too: now and then a jump of hours, so expiry and refresh rules run against odd tokens.
                let now = FuzzFixtures.now.addingTimeInterval(Double(mutator.below(8) * 1800 - 1800))
                tally.tried += 1
                switch session.authorize(authorization, environment: mutator.chance(50) ? .development : .production, keys: keys, now: now) {
                case .success: tally.accepted += 1
                case .failure(let rejection):
                    #expect(!rejection.explanation.isEmpty)
                    tally.rejected += 1
                }
            }
            print(tally)
            #expect(tally.accepted > 0 && tally.rejected > 0)
        }
    }
}
