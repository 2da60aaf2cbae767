import APNSimRules
import Foundation
import Testing

@Suite("Installing apps")
struct InstallCheckTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static var good: AppManifest { .signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: now) }

    @Test("A correctly signed app installs, in either environment")
    func installs() {
        #expect(InstallCheck.refusal(for: Self.good, now: Self.now) == nil)
        let production = AppManifest.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .production, now: Self.now)
        #expect(InstallCheck.refusal(for: production, now: Self.now) == nil)
    }

    static func changed(_ change: (inout AppManifest) -> Void) -> AppManifest {
        var app = good
        change(&app)
        return app
    }

    @Test("What iOS refuses is refused, with Xcode's or iOS's words", arguments: [
        (changed { $0.profile.team = "OTHERTEAM1" }, InstallCheck.Refusal.Kind.teamMismatch, "belongs to team OTHERTEAM1"),
        (changed { $0.profile.appID = "SIMTEAM001.com.example.other" }, .appIDMismatch, "does not match the bundle ID"),
        (changed { $0.profile.expires = now }, .expiredProfile, "expired on"),
        (changed { $0.apsEnvironment = nil }, .noPushEntitlement, "no valid \"aps-environment\" entitlement"),
        (changed { $0.profile.appID = "SIMTEAM001.*" }, .wildcardWithPush, "doesn't support the Push Notifications capability"),
        (changed { $0.profile.pushCapability = false }, .noPushCapability, "doesn't support the Push Notifications capability"),
        (changed { $0.profile.kind = .appStore }, .entitlementMismatch, "aps-environment"),
        (changed { $0.appGroups = ["group.com.example.app"]; $0.profile.appGroups = [] }, .appGroups,
         "doesn't include the com.apple.security.application-groups entitlement"),
        (changed { $0.appGroups = ["group.com.example.app", "group.other"]; $0.profile.appGroups = ["group.com.example.app"] }, .appGroups,
         "doesn't match the entitlements file's value for the com.apple.security.application-groups entitlement (com.example.app lists group.other"),
    ])
    func refusals(_ app: AppManifest, _ kind: InstallCheck.Refusal.Kind, _ words: String) {
        let refusal = InstallCheck.refusal(for: app, now: Self.now)
        #expect(refusal?.kind == kind)
        #expect(refusal?.description.contains(words) == true, "\(refusal?.description ?? "installed")")
    }

    @Test("App Groups the profile has, or a profile that names none (automatic signing), install")
    func appGroupsInstall() {
        #expect(InstallCheck.refusal(for: Self.changed { $0.appGroups = ["group.a"] }, now: Self.now) == nil)
        #expect(InstallCheck.refusal(for: Self.changed { $0.appGroups = ["group.a"]; $0.profile.appGroups = ["group.a", "group.b"] }, now: Self.now) == nil)
    }

    @Test("Wildcard App IDs cover bundle IDs under their prefix only")
    func wildcards() {
        var profile = Self.good.profile
        profile.appID = "SIMTEAM001.com.example.*"
        #expect(profile.covers(bundleID: "com.example.app", team: "SIMTEAM001"))
        #expect(!profile.covers(bundleID: "org.other.app", team: "SIMTEAM001"))
        #expect(!profile.covers(bundleID: "com.example.app", team: "OTHERTEAM1"))
    }

    @Test("Tokens: the same registration gets the same token; a reinstall, another app or environment a new one")
    func tokens() {
        let issuer = TokenIssuer()
        let first = issuer.token(device: "D1", bundleID: "com.example.app", environment: .development, installation: "I1")
        #expect(first == issuer.token(device: "D1", bundleID: "com.example.app", environment: .development, installation: "I1"))
        #expect(first.hex.count == 64)
        #expect(first != issuer.token(device: "D1", bundleID: "com.example.app", environment: .development, installation: "I2"))
        #expect(first != issuer.token(device: "D1", bundleID: "com.example.app", environment: .production, installation: "I1"))
        #expect(first != issuer.token(device: "D2", bundleID: "com.example.app", environment: .development, installation: "I1"))
        #expect(first != TokenIssuer(secret: "another gateway").token(device: "D1", bundleID: "com.example.app",
                                                                    environment: .development, installation: "I1"))
    }
}
