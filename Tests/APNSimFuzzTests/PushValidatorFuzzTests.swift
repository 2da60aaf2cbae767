import APNSimRules
import Foundation
import Testing

/// Provider requests, mutated: headers dropped, repeated, renamed and given hostile values; paths and bodies
/// mangled. Each must come out as a plan or a rejection with a sentence, and an accepted body must read as a
/// notification the way a device reads it.
extension Fuzz {
    @Suite("Fuzz: provider requests")
    struct PushValidatorFuzzTests {
        typealias Fields = [(name: String, value: String)]

        static let headerNames = ["apns-id", "apns-expiration", "apns-priority", "apns-topic", "apns-push-type", "apns-collapse-id",
                                  "authorization", ":method", ":path", "content-type", "apns-channel-id"]

        static let requests: [(Fields, String)] = {
            let path = "/3/device/\(FuzzFixtures.developmentToken)"
            let auth = ("authorization", "bearer \(FuzzFixtures.jwt)")
            return [
                ([(":method", "POST"), (":path", path), auth, ("apns-topic", "com.example.app"), ("apns-push-type", "alert")],
                 #"{"aps":{"alert":{"title":"Hi","body":"there"},"badge":3,"sound":"default","thread-id":"t"}}"#),
                ([(":method", "POST"), (":path", path), auth, ("apns-topic", "com.example.app"), ("apns-push-type", "background"),
                  ("apns-priority", "5"), ("apns-expiration", "1800003600")], #"{"aps":{"content-available":1},"k":[1,2.5,null]}"#),
                ([(":method", "POST"), (":path", path), auth, ("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip"),
                  ("apns-id", "123e4567-e89b-12d3-a456-426614174000"), ("apns-collapse-id", "c1")], #"{"aps":{},"call":"x"}"#),
                ([(":method", "POST"), (":path", path), auth, ("apns-topic", "com.example.app.push-type.liveactivity"),
                  ("apns-push-type", "liveactivity"), ("apns-priority", "10")],
                 #"{"aps":{"timestamp":1800000000,"event":"update","content-state":{"n":1},"relevance-score":0.5}}"#),
            ]
        }()

        @Test("Seeded mutated requests: every one a plan or a rejection with a sentence")
        func mutatedRequests() async {
            var mutator = Mutator(seed: 0x5EED_0001, corpus: Self.requests.flatMap { [Array($0.1.utf8)] + $0.0.map { Array($0.value.utf8) } })
            var tally = FuzzTally(name: "PushValidator")
            let validator = PushValidator()
            let world = FuzzFixtures.world
            for iteration in 0..<fuzzIterations {
                if iteration % 1000 == 0 { await Task.yield() }  // let the other tests run
                let (fields, body) = Self.mutated(Self.requests[mutator.below(Self.requests.count)], with: &mutator)
                var auth = ConnectionAuth.token(ProviderTokenSession())
                let verdict = validator.validateHead(PushRequestHead(headers: fields), environment: .development, auth: &auth,
                                                     world: world, now: FuzzFixtures.now)
                tally.tried += 1
                switch verdict {
                case .failure(let rejection):
                    #expect(!rejection.explanation.isEmpty)
                    _ = rejection.responseBody
                    tally.rejected += 1
                case .success(let plan):
                    if let rejection = validator.validateBody(body, plan: plan) {
                        #expect(!rejection.explanation.isEmpty)
                        tally.rejected += 1
                    } else {
                        tally.accepted += 1
                        _ = try? PushPayload(json: body)
                    }
                }
            }
            print(tally)
            #expect(tally.accepted > 0 && tally.rejected > 0, "the mutations reach both outcomes")
        }

        /// One to three structural edits to the header list, and usually one to the body.
        static func mutated(_ request: (Fields, String), with mutator: inout Mutator) -> (Fields, [UInt8]) {
            var fields = request.0
            for _ in 0...mutator.below(3) {
                let index = mutator.below(fields.count)
                switch mutator.below(6) {
                case 0 where !fields.isEmpty:
                    fields[index].value = String(decoding: mutator.mutate(Array(fields[index].value.utf8)), as: UTF8.self)
                case 1 where !fields.isEmpty:
                    fields.remove(at: index)
                case 2 where !fields.isEmpty:
                    fields.append(fields[index])
                case 3:
                    let name = headerNames[mutator.below(headerNames.count)]
                    let value = String(decoding: Mutator.interesting[mutator.below(Mutator.interesting.count)], as: UTF8.self)
                    fields.insert((name, value), at: mutator.below(fields.count + 1))
                case 4 where !fields.isEmpty:
                    fields[index].name = String(decoding: mutator.mutate(Array(fields[index].name.utf8)), as: UTF8.self)
                default:
                    break
                }
            }
            let body = mutator.chance(80) ? mutator.mutate(Array(request.1.utf8)) : Array(request.1.utf8)
            return (fields, body)
        }
    }
}
