import APNSimRules
import Testing

/// What an interruption level and a Focus let a notification do, from plain values.
@Suite("Interruption levels and Focus")
struct InterruptionTests {
    static let work = Focus(name: "Work", allowedApps: ["com.example.allowed"])
    static let timeSensitive = [Interruption.timeSensitiveEntitlement]

    @Test("Without a Focus every level but passive is a banner; passive never is")
    func noFocus() {
        for level in [nil, "active", "time-sensitive", "critical"] {
            #expect(Interruption.decide(level: level, bundleID: "com.example.app", entitlements: [], focus: nil).banner, "\(level ?? "none")")
        }
        let passive = Interruption.decide(level: "passive", bundleID: "com.example.app", entitlements: [], focus: nil)
        #expect(!passive.banner && passive.quietly?.contains("passive") == true)
    }

    @Test("A Focus holds active pushes of the apps it does not allow, and lets the allowed app's through")
    func holdsActive() {
        let held = Interruption.decide(level: "active", bundleID: "com.example.app", entitlements: [], focus: Self.work)
        #expect(!held.banner)
        #expect(held.quietly == "held by the Work Focus and delivered quietly: it does not allow com.example.app")
        #expect(Interruption.decide(level: nil, bundleID: "com.example.allowed", entitlements: [], focus: Self.work).banner)
    }

    @Test("time-sensitive breaks through with the entitlement and is held like active without it; critical likewise")
    func breakThrough() {
        #expect(Interruption.decide(level: "time-sensitive", bundleID: "com.example.app", entitlements: Self.timeSensitive, focus: Self.work).banner)
        let without = Interruption.decide(level: "time-sensitive", bundleID: "com.example.app", entitlements: [], focus: Self.work)
        #expect(!without.banner && without.quietly?.contains("without the app's Time Sensitive Notifications entitlement") == true)
        #expect(!Interruption.decide(level: "critical", bundleID: "com.example.app", entitlements: Self.timeSensitive, focus: Self.work).banner,
                "the time-sensitive entitlement does not make a critical alert")
        #expect(Interruption.decide(level: "critical", bundleID: "com.example.app", entitlements: [Interruption.criticalAlertsEntitlement],
                                    focus: Self.work).banner)
    }
}
