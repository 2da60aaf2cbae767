import APNSimRules
import Foundation
import Testing

@Suite("App manifest")
struct AppManifestTests {
    @Test("A manifest is its declaration and its signature in one object, as before the declaration was its own type")
    func flatJSON() throws {
        var declared = World.App(bundleID: "com.example.app", team: "SIMTEAM001",
                                 serviceExtension: ServiceExtensionManifest(bundleID: "com.example.app.NotificationService", kind: .braze),
                                 resources: "/media", appGroups: ["group.com.example.app"])
        declared.infoPlist = ["NSSupportsLiveActivitiesFrequentUpdates": .bool(true)]
        let manifest = AppManifest.installed(bundleID: "com.example.app", environment: .production, declared: declared,
                                             team: "OTHERTEAM1", now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(manifest.team == "SIMTEAM001", "signed by the team the world declares")
        #expect(manifest.declaration == declared && manifest.supportsFrequentUpdates)
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(manifest)) as? [String: Any])
        #expect(Set(object.keys) == ["bundleID", "team", "serviceExtension", "resources", "appGroups", "infoPlist", "apsEnvironment", "profile"])
        #expect(try JSONDecoder().decode(AppManifest.self, from: JSONEncoder().encode(manifest)) == manifest)
        let undeclared = AppManifest.installed(bundleID: "com.example.other", environment: .development, declared: nil,
                                               team: "OTHERTEAM1", now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(undeclared.team == "OTHERTEAM1" && undeclared.serviceExtension == nil)
    }
}
