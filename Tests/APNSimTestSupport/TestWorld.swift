import APNSimProvider
import APNSimRules
import Crypto
import Foundation

/// The world every gateway test starts with, and the private keys that sign for it: what the gateway's unit tests and
/// the end-to-end tests share.
public enum TestWorld {
    public static let team = "SIMTEAM001"
    public static let otherTeam = "OTHERTEAM1"

    /// Key IDs and what they are.
    public static let teamKey = "SIMKEY0001"          // team key, both environments
    public static let developmentKey = "DEVKEY0001"   // team key, development only
    public static let productionKey = "PRODKEY001"    // team key, production only
    public static let topicKey = "TOPICKEY01"         // topic-specific: com.example.other only
    public static let relatedKey = "RELATED001"       // related to the team key
    public static let otherTeamKey = "OTHERKEY01"     // another team's key

    public static let privateKeys: [String: P256.Signing.PrivateKey] = Dictionary(uniqueKeysWithValues:
        [teamKey, developmentKey, productionKey, topicKey, relatedKey, otherTeamKey].map { ($0, P256.Signing.PrivateKey()) })

    public static let devToken = "a1" + String(repeating: "0", count: 62)
    public static let prodToken = "b2" + String(repeating: "0", count: 62)
    public static let goneToken = "c3" + String(repeating: "0", count: 62)
    public static let expiredToken = "d4" + String(repeating: "0", count: 62)
    public static let otherAppToken = "e5" + String(repeating: "0", count: 62)
    public static let otherTeamToken = "e6" + String(repeating: "0", count: 62)
    /// An 80-byte token, the size Live Activity tokens come in.
    public static let longToken = String(repeating: "f6", count: 80)
    public static let goneSince = Date(timeIntervalSince1970: 1_767_225_600.123)

    public static func signer(_ keyID: String) -> ProviderTokenSigner {
        let team = keyID == otherTeamKey ? otherTeam : team
        return ProviderTokenSigner(key: privateKeys[keyID]!, keyID: keyID, teamID: team)
    }

    public static func make() -> World {
        var world = World()
        world.teams[team] = .init(id: team, name: "Sandbox")
        world.teams[otherTeam] = .init(id: otherTeam, name: "Someone else")
        func key(_ id: String, team: String = team, scope: ProviderKey.Scope = .both, topics: [String]? = nil, related: String? = nil) {
            world.keys[id] = ProviderKey(id: id, team: team, scope: scope, topics: topics, relatedKeyID: related,
                                         publicKey: privateKeys[id]!.publicKey)
        }
        key(teamKey)
        key(developmentKey, scope: .development)
        key(productionKey, scope: .production)
        key(topicKey, scope: .development, topics: ["com.example.other"])
        key(relatedKey, related: teamKey)
        key(otherTeamKey, team: otherTeam)
        world.apps["com.example.app"] = .init(bundleID: "com.example.app", team: team)
        world.apps["com.example.other"] = .init(bundleID: "com.example.other", team: team)
        world.apps["com.other.team"] = .init(bundleID: "com.other.team", team: otherTeam)
        func token(_ hex: String, _ bundle: String = "com.example.app", _ environment: APNsEnvironment = .development,
                   _ state: World.TokenRecord.State = .active) {
            let token = DeviceToken(hex)!
            world.tokens[token] = .init(token: token, bundleID: bundle, environment: environment, state: state,
                                        invalidSince: state == .active ? nil : goneSince)
        }
        token(devToken)
        token(prodToken, "com.example.app", .production)
        token(goneToken, "com.example.app", .development, .unregistered)
        token(expiredToken, "com.example.app", .development, .expired)
        token(otherAppToken, "com.example.other")
        token(otherTeamToken, "com.other.team")
        token(longToken)
        return world
    }
}
