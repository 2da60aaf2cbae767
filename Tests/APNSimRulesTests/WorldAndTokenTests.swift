@testable import APNSimRules
import Foundation
import SwiftASN1
import Testing
import X509

@Suite("Device tokens, push types, world files, certificates")
struct WorldAndTokenTests {
    @Test("Tokens: 8 to 100 bytes of hex in either case, compared in lower case", arguments: [
        (String(repeating: "ab", count: 32), true), (String(repeating: "AB", count: 54), true), (String(repeating: "0f", count: 80), true),
        (String(repeating: "aF", count: 16), true),
        (String(repeating: "ab", count: 101), false), ("abc", false), (String(repeating: "gg", count: 32), false), ("", false),
    ])
    func tokens(_ text: String, _ valid: Bool) {
        let token = DeviceToken(text)
        #expect((token != nil) == valid)
        if let token { #expect(token.hex == text.lowercased()) }
    }

    @Test("Push types infer from topic suffixes")
    func pushTypes() {
        #expect(PushType.inferred(fromTopic: "com.a.voip") == .voip)
        #expect(PushType.inferred(fromTopic: "com.a.push-type.liveactivity") == .liveactivity)
        #expect(PushType.inferred(fromTopic: "com.a.voip-ptt") == .pushtotalk)
        #expect(PushType.inferred(fromTopic: "com.a") == .alert)
        #expect(PushType.inferred(fromTopic: "com.a.app") == .alert, "ends as .voip does, and is no VoIP topic")
        #expect(PushType.inferred(fromTopic: "") == .alert)
        for type in PushType.all where !type.topicSuffix.isEmpty {
            #expect(PushType.inferred(fromTopic: "com.a" + type.topicSuffix) == type)
        }
        #expect(PushType.liveactivity.bundleID(fromTopic: "com.a.push-type.liveactivity") == "com.a")
    }

    @Test("The sandbox world loads; its tokens cover both environments")
    func sandboxWorld() throws {
        let path = Self.repository("Scenarios/sandbox.yaml")
        let world = try WorldFile.parse(try String(contentsOfFile: path, encoding: .utf8), path: path,
                                        directory: URL(fileURLWithPath: path).deletingLastPathComponent(),
                                        readFile: { try String(contentsOf: $0, encoding: .utf8) })
        #expect(world.keys["SIMKEY0001"]?.team == "SIMTEAM001")
        let environments = Set(world.tokens.values.filter { $0.state == .active }.map(\.environment))
        #expect(environments == [.development, .production])
        #expect(world.tokens.values.contains { $0.state == .unregistered && $0.invalidSince != nil })
        let delivery = try #require(world.apps["com.example.app"]?.activityTypes?.first)
        #expect(delivery == ActivityAttributesType(name: "DeliveryAttributes", attributes: ["orderID": .init(.string)],
                                                   contentState: ["status": .init(.string), "etaMinutes": .init(.int)]))
    }

    @Test("World files with mistakes say where", arguments: [
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T2}]", "team T2"),
        ("tokens:\n  - token: nothex\n    bundleID: a\n    environment: development\n    state: active", "<world>:2: tokens[0].token: 'nothex' is not a device token"),
        ("teams: [{id: T1}]\nkeys: [{id: K1, team: T1}]", "publicKey"),
        ("teams: [{id: T1}]\nkeys: [{id: K1, team: T1, publicKeyFile: k.pem}]", "k.pem is not read here: give the key's PEM in publicKey"),
        ("teams: [{id: T1\n", "<world>:2: not valid YAML"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, activityTypes: [{name: X, attributes: {}, contentState: {at: UUID}}]}]",
         "UUID is not one of String, Int, Double, Bool, Date, JSON"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, categories: [{identifier: X}, {identifier: X}]}]",
         "app a.b: category \"X\" is registered twice"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, categories: [{identifier: X, actions: [{identifier: A, title: A, options: [loud]}]}]}]",
         "category \"X\"'s action \"A\" has option loud, which is not one of authenticationRequired, destructive, foreground"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, categories: [{identifier: X, options: [sticky]}]}]",
         "category \"X\" has option sticky"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, categories: [{identifier: X, actions: [{identifier: A}]}]}]",
         "title"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1}]\ndevices: [{id: fan, name: Fan, count: 300000, apps: [{bundleID: a.b, environment: development}]}]",
         "device fan has count 300000; a fleet is 1 to 250000 devices"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1}]\ndevices: [{id: fan, name: Fan, count: 0, apps: [{bundleID: a.b, environment: development}]}]",
         "device fan has count 0"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, widgets: {kinds: []}}]", "app a.b: widgets lists no kinds"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, widgets: {kinds: [w], dailyReloads: 0}}]",
         "app a.b: widgets.dailyReloads is 0; give 1 to 10000 reloads a day"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, controls: {kinds: [c, c]}}]", "app a.b: controls lists kind c twice"),
        ("teams: [{id: T1}]\napps: [{bundleID: a.b, team: T1, widgets: {kind: w}}]", "widgets.kind"),
    ])
    func badWorlds(_ yaml: String, _ mention: String) {
        #expect {
            _ = try WorldFile.parse(yaml)
        } throws: { error in
            "\(error)".contains(mention)
        }
    }

    @Test("The committed provider certificates carry Apple's OIDs, UID and topic list")
    func committedCertificates() throws {
        for (file, environment) in [("provider-development.pem", APNsEnvironment.development), ("provider-production.pem", .production)] {
            let pem = try String(contentsOfFile: Self.repository("Certs/\(file)"), encoding: .utf8)
            let identity = try ProviderCertificate(try Certificate(pemEncoded: pem))
            #expect(identity.bundleID == "com.example.app")
            #expect(identity.environments == [environment])
            #expect(identity.topics == ["com.example.app", "com.example.app.voip", "com.example.app.complication"])
        }
    }

    static func repository(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(path).path
    }
}
