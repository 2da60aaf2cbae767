import APNSimRules
import APNSimSandbox
import Foundation
import Testing

/// World files, mutated: the sandbox world and a fuller one with every key, broken as YAML, as types and as
/// values. Each must load or be refused with a sentence naming the file.
extension Fuzz {
    @Suite("Fuzz: world files")
    struct WorldFileFuzzTests {
        static let full = """
            teams: [{ id: SIMTEAM001, name: Team }, { id: OTHERTEAM1 }]
            keys:
              - { id: SIMKEY0001, team: SIMTEAM001, scope: both, publicKeyFile: ../Certs/AuthKey_SIMKEY0001.pub.pem }
              - { id: TOPICKEY01, team: SIMTEAM001, scope: development, topics: [com.example.app], relatedKeyID: SIMKEY0001,
                  publicKeyFile: ../Certs/AuthKey_SIMKEY0001.pub.pem }
            apps: [{ bundleID: com.example.app, team: SIMTEAM001 }, { bundleID: com.other.app, team: OTHERTEAM1 }]
            devices:
              - { id: d1, name: One, model: iPhone16,1, os: iOS 18.1, apps: [{ bundleID: com.example.app, environment: production }] }
            tokens:
              - { token: 4a1159f70e8ea285a838979ff0918a664380fb5d614d952dfe10fa5a4cee141a, bundleID: com.example.app,
                  environment: development, state: expired, invalidSince: 2026-01-01T00:00:00.5Z }
            """

        @Test("Seeded mutated world files: a world or a sentence naming the file")
        func mutatedWorlds() async throws {
            let sandbox = try String(contentsOfFile: FuzzFixtures.sandboxPath, encoding: .utf8)
            var mutator = Mutator(seed: 0x5EED_0004, corpus: [Array(sandbox.utf8), Array(Self.full.utf8)])
            var tally = FuzzTally(name: "WorldFile")
            let directory = URL(fileURLWithPath: FuzzFixtures.sandboxPath).deletingLastPathComponent()
            for iteration in 0..<worldFileFuzzIterations {
                if iteration % 1000 == 0 { await Task.yield() }  // let the other tests run
                let text = String(decoding: mutator.mutant(), as: UTF8.self)
                tally.tried += 1
                do {
                    let world = try WorldFile.parse(text, path: "fuzz.yaml", directory: directory, readFile: WorldFile.readFromDisk)
                    _ = world.problems
                    tally.accepted += 1
                } catch {
                    #expect("\(error)".hasPrefix("fuzz.yaml"), "\(error)")
                    tally.rejected += 1
                }
            }
            print(tally)
            #expect(tally.accepted > 0 && tally.rejected > 0)
        }
    }
}
