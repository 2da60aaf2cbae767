import APNSimRules
import Foundation
import Testing

/// The Scheduled Summary's times, apps and checks, as values.
@Suite("Scheduled Summary rules")
struct ScheduledSummaryRuleTests {
    static func date(_ text: String) throws -> Date { try Date(text, strategy: .iso8601) }

    @Test("The next time is today's next, or tomorrow's first, in the summary's time zone")
    func nextTime() throws {
        let summary = ScheduledSummary(times: ["18:00", "08:00"])
        #expect(summary.next(after: try Self.date("2026-11-26T07:59:59Z")) == (try Self.date("2026-11-26T08:00:00Z")))
        #expect(summary.next(after: try Self.date("2026-11-26T08:00:00Z")) == (try Self.date("2026-11-26T18:00:00Z")))
        #expect(summary.next(after: try Self.date("2026-11-26T23:30:00Z")) == (try Self.date("2026-11-27T08:00:00Z")))
        let paris = ScheduledSummary(times: ["08:00"], timeZone: "Europe/Paris")  // UTC+1 in November
        #expect(paris.next(after: try Self.date("2026-11-26T06:00:00Z")) == (try Self.date("2026-11-26T07:00:00Z")))
    }

    @Test("Apps: none listed takes every app; a list takes only those")
    func apps() {
        #expect(ScheduledSummary(times: ["08:00"]).includes("com.example.app"))
        #expect(ScheduledSummary(times: ["08:00"], apps: []).includes("com.example.app"))
        #expect(!ScheduledSummary(times: ["08:00"], apps: ["com.example.news"]).includes("com.example.app"))
    }

    @Test("Problems name the value: no time, a time not HH:mm, more than 12, an unknown zone")
    func problems() {
        #expect(ScheduledSummary(times: []).problems == ["a Scheduled Summary needs at least one time (HH:mm)"])
        #expect(ScheduledSummary(times: ["24:00"]).problems == ["summary time 24:00 is not a time of day as HH:mm (08:00, 18:30)"])
        #expect(ScheduledSummary(times: Array(repeating: "08:00", count: 13)).problems
                == ["a Scheduled Summary has at most 12 times a day; 13 were given"])
        #expect(ScheduledSummary(times: ["08:00"], timeZone: "Nowhere/City").problems.first?.contains("Nowhere/City") == true)
        #expect(ScheduledSummary(times: ["08:00", "21:30"], timeZone: "America/New_York").problems.isEmpty)
    }

    @Test("Only time-sensitive and critical with their entitlements break through")
    func breaksThrough() {
        #expect(Interruption.breaksThrough(level: "time-sensitive", entitlements: [Interruption.timeSensitiveEntitlement]))
        #expect(!Interruption.breaksThrough(level: "time-sensitive", entitlements: []))
        #expect(Interruption.breaksThrough(level: "critical", entitlements: [Interruption.criticalAlertsEntitlement]))
        #expect(!Interruption.breaksThrough(level: "active", entitlements: [Interruption.timeSensitiveEntitlement]))
        #expect(!Interruption.breaksThrough(level: nil, entitlements: []))
    }
}
