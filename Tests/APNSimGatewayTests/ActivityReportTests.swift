import APNSimDeviceLink
@testable import APNSimGateway
import APNSimRules
import Foundation
import Testing

/// The gateway's copy of a device's Live Activities is the device's last report: an end by the app goes to the device
/// and changes nothing here until the device answers; the order shown is the device's.
@Suite("Live Activities: the device's report is the gateway's copy")
struct ActivityReportTests {
    static let now = DeviceRegistryTests.now

    static func activity(_ id: String, score: Double? = nil, startedAfter seconds: TimeInterval = 0, token: DeviceToken? = nil) -> LiveActivity {
        LiveActivity(id: id, bundleID: "com.example.app", attributesType: "DeliveryAttributes", attributes: [:],
                     contentState: ["status": .string("packed")], startedAt: now + seconds, pushToken: token, relevanceScore: score)
    }

    static func token(_ byte: String) -> DeviceToken { DeviceToken(String(repeating: byte, count: 32))! }

    /// Device d1's activities' places as `GET /v1/activities` shows them at `now`.
    static func ranks(_ registry: DeviceRegistry, at now: Date = now) -> [String: Int] {
        registry.devices["d1"].map { registry.displayRanks(of: $0, at: now) } ?? [:]
    }

    @Test("An end by the app goes to the device and changes nothing until the device's report, which replaces the copy")
    func endWaitsForTheReport() throws {
        var (registry, session) = DeviceRegistryTests.withDevice()
        _ = registry.startActivity(Self.activity("A1", token: Self.token("e1")), environment: .development, device: "d1")
        let sent = registry.endActivity("A1", contentState: ["status": .string("delivered")], dismissal: nil, at: Self.now + 5)
        let end = try #require(sent)
        guard case .send(let link, .endActivity(let message), "d1") = end else {
            Issue.record("expected the end sent to d1, got \(end)")
            return
        }
        #expect(link === session && message.bundleID == "com.example.app" && message.at == Self.now + 5)
        #expect(registry.devices["d1"]?.activities["A1"]?.isEnded == false, "the gateway does not end it by itself")

        var ended = Self.activity("A1", token: Self.token("e1"))
        ended.endedAt = Self.now + 5
        ended.contentState = ["status": .string("delivered")]
        _ = registry.report(.init(bundleID: "com.example.app", activities: [ended]), device: "d1")
        #expect(registry.devices["d1"]?.activities["A1"] == ended)
        let unknown = registry.endActivity("nope", contentState: nil, dismissal: nil, at: Self.now)
        #expect(unknown == nil)
    }

    @Test("Ended while the device has no link: the end waits, shown pending, and goes first when the device links again")
    func endWhileOffline() throws {
        var (registry, session) = DeviceRegistryTests.withDevice()
        _ = registry.startActivity(Self.activity("A1", token: Self.token("e1")), environment: .development, device: "d1")
        _ = registry.detach(session)
        let waited = registry.endActivity("A1", contentState: nil, dismissal: nil, at: Self.now)
        let end = try #require(waited)
        guard case .waiting = end else {
            Issue.record("expected the end to wait, got \(end)")
            return
        }
        #expect(registry.pendingEnds(of: try #require(registry.devices["d1"])) == ["A1"])
        let again = DeviceRegistryTests.session()
        let attached = registry.attach(again, now: Self.now + 60)
        guard case .endActivity(let sent)? = attached.send.first?.1 else {
            Issue.record("the end is not the first message on the new link: \(attached.send.map(\.1))")
            return
        }
        #expect(sent.id == "A1")
        #expect(registry.pendingEnds(of: try #require(registry.devices["d1"])).isEmpty)
    }

    @Test("The order shown is the device's report, not re-derived: a report against relevance-score is shown as reported; one added goes last until reported")
    func orderIsReported() {
        var (registry, _) = DeviceRegistryTests.withDevice()
        _ = registry.startActivity(Self.activity("A1", token: Self.token("e1")), environment: .development, device: "d1")
        _ = registry.startActivity(Self.activity("A2", score: 90, startedAfter: 1, token: Self.token("e2")), environment: .development, device: "d1")
        #expect(Self.ranks(registry) == ["A1": 1, "A2": 2], "added: last, until the device reports")
        // A device that put A1 first despite A2's score: shown as it reported (the gateway keeps no rule of its own).
        _ = registry.report(.init(bundleID: "com.example.app", activities: [Self.activity("A1"), Self.activity("A2", score: 90, startedAfter: 1)]),
                            device: "d1")
        #expect(Self.ranks(registry) == ["A1": 1, "A2": 2])
        #expect(registry.devices["d1"]?.activities["A2"]?.pushToken == Self.token("e2"), "the token is the gateway's; a report without it keeps it")
        #expect(registry.destination(of: Self.token("e2")) == .device("d1"))
        _ = registry.report(.init(bundleID: "com.example.app", activities: [Self.activity("A2", score: 90, startedAfter: 1), Self.activity("A1")]),
                            device: "d1")
        #expect(Self.ranks(registry) == ["A2": 1, "A1": 2])
    }

    @Test("After a gateway restart, a report before the app's registration is kept, and its tokens are held once the app registers")
    func reportBeforeRegistration() {
        var registry = DeviceRegistry(world: World())
        _ = registry.attach(DeviceRegistryTests.session(), now: Self.now)
        _ = registry.report(.init(bundleID: "com.example.app", activities: [Self.activity("A1", token: Self.token("e1"))]), device: "d1")
        #expect(registry.devices["d1"]?.activities["A1"] != nil)
        #expect(registry.destination(of: Self.token("e1")) != .device("d1"), "no environment yet: not routed")
        _ = registry.register(DeviceRegistryTests.app, device: "d1", team: "TEAM000001")
        #expect(registry.destination(of: Self.token("e1")) == .device("d1"))
        #expect(registry.tokens[Self.token("e1")]?.environment == .development)
    }
}
