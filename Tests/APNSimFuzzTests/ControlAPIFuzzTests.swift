@testable import APNSimRules
@testable import APNSimGateway
import Crypto
import Foundation
import Testing

/// Control-API input, mutated: every POST body the API decodes (faults, teams, apps, keys, tokens, app installs)
/// and the query strings of its reads. Each must decode and apply, or be refused with a sentence.
extension Fuzz {
    @Suite("Fuzz: control API")
    struct ControlAPIFuzzTests {
        static let pem = FuzzFixtures.world.keys["SIMKEY0001"]!.publicKey.pemRepresentation
            .replacingOccurrences(of: "\n", with: "\\n")

        static let bodies: [(route: String, json: String)] = [
            ("faults", #"[{"reason":"ServiceUnavailable","count":3,"token":"4a1159f70e8ea285a838979ff0918a664380fb5d614d952dfe10fa5a4cee141a","environment":"development"},{"reason":"Custom","status":599}]"#),
            ("teams", #"[{"id":"TEAM000002","name":"Two"}]"#),
            ("apps", #"[{"bundleID":"com.two.app","team":"SIMTEAM001"}]"#),
            ("keys", #"[{"id":"KEY0000002","team":"SIMTEAM001","scope":"production","topics":["com.example.app"],"relatedKeyID":"SIMKEY0001","publicKey":"\#(pem)"}]"#),
            ("tokens", #"[{"token":"4a1159f70e8ea285a838979ff0918a664380fb5d614d952dfe10fa5a4cee141a","bundleID":"com.example.app","environment":"development","state":"unregistered","invalidSince":789000000.5}]"#),
            ("install", #"{"bundleID":"com.example.app","environment":"production","team":"SIMTEAM001"}"#),
            ("install", #"{"bundleID":"com.example.app","team":"SIMTEAM001","apsEnvironment":"development","profile":{"name":"P","team":"SIMTEAM001","appID":"SIMTEAM001.com.example.*","kind":"development","expires":820000000,"pushCapability":true}}"#),
        ]

        static let queries: [[String: String]] = [
            ["token": "4a11", "topic": "com.example.app", "status": "400", "since": "2026-01-01T00:00:00.000Z", "limit": "10"],
            ["device": "iphone-dev", "bundle": "com.example.app", "apnsId": "x", "after": "1767225600000", "limit": "5", "wait": "1.5"],
        ]

        @Test("Seeded mutated bodies and queries: applied, or refused with a sentence")
        func mutatedInput() async throws {
            var mutator = Mutator(seed: 0x5EED_0005, corpus: Self.bodies.map { Array($0.json.utf8) }
                                  + Self.queries.flatMap { $0.sorted { $0.key < $1.key }.map { Array($0.value.utf8) } })
            var tally = FuzzTally(name: "ControlAPI")
            let registry = WorldRegistry(FuzzFixtures.world)
            for iteration in 0..<fuzzIterations {
                if iteration % 1000 == 0 { await Task.yield() }  // let the other tests run
                tally.tried += 1
                do {
                    if iteration % 4 == 3 {
                        var query = Self.queries[mutator.below(Self.queries.count)]
                        for key in query.keys.sorted() where mutator.chance(40) {  // sorted: a dictionary's order differs per run
                            query[key] = String(decoding: mutator.mutate(Array(query[key]!.utf8)), as: UTF8.self)
                        }
                        _ = try ControlQuery.sendFilter(query)
                        _ = try ControlQuery.deliveryFilter(query)
                    } else {
                        let body = Self.bodies[mutator.below(Self.bodies.count)]
                        try Self.apply(route: body.route, Data(mutator.mutate(Array(body.json.utf8))), registry: registry)
                    }
                    tally.accepted += 1
                } catch let error as ControlAPIError {
                    #expect(!error.description.isEmpty)
                    tally.rejected += 1
                } catch {
                    #expect(!"\(error)".isEmpty)
                    tally.rejected += 1
                }
            }
            print(tally)
            #expect(tally.accepted > 0 && tally.rejected > 0)
        }

        /// What the route does with a body once read: decode, check, apply to a copy of the world, list its problems.
        static func apply(route: String, _ body: Data, registry: WorldRegistry) throws {
            var world = FuzzFixtures.world
            switch route {
            case "faults":
                try FaultInjector().add(try ControlJSON.decode([Fault].self, from: body), now: Date())
            case "teams":
                for team in try ControlJSON.decode([World.Team].self, from: body) { world.teams[team.id] = team }
            case "apps":
                for app in try ControlJSON.decode([World.App].self, from: body) { world.apps[app.bundleID] = app }
            case "keys":
                for key in try ControlJSON.decode([WorldFile.Key].self, from: body) { world.keys[key.id] = try key.resolve(relativeTo: nil) }
            case "tokens":
                for record in try ControlJSON.decode([World.TokenRecord].self, from: body) {
                    world.tokens[record.token] = record
                    _ = Rejection(.unregistered, "", invalidSince: record.invalidSince).responseBody
                }
            default:
                let manifest = try ControlAPI.manifest(from: body, world: registry, now: FuzzFixtures.now)
                _ = InstallCheck.refusal(for: manifest, now: FuzzFixtures.now)
            }
            _ = world.problems
        }
    }
}
