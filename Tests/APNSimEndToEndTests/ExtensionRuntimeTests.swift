import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The runtime's rules, driven by the `scripted` kind (the push says what the extension does): the budget and the
/// expiry callback, first call wins, crashes, memory, suppression, one process per app reused.
@Suite("Service extensions: the runtime", .endToEnd)
struct ExtensionRuntimeTests {
    static func script(_ json: String) -> String { richPush(#""apnsim":{"extension":\#(json)}"#) }

    @Test("A handler never called shows the original after the budget and the grace period")
    func neverCalled() async throws {
        try await withExtensionWorld(appWithExtension(.scripted), budget: .seconds(1), grace: .milliseconds(300)) { send in
            let delivery = try await send(Self.script(#"{"action":"hang","atExpiry":"nothing"}"#))
            #expect(delivery.outcome == "displayed")
            #expect(delivery.run["outcome"] as? String == "expired")
            #expect(delivery.diagnostic.contains("did not call its content handler within 1.0 seconds"), "\(delivery.run)")
            #expect(delivery.content["title"] as? String == "Hello")
            let took = try #require(delivery.run["durationMs"] as? Int)
            // Not before the budget and the grace are spent; how long after depends on the machine, and the outcome
            // above already says the runtime, not the extension, ended it.
            #expect(took >= 1300, "budget plus grace: \(took) ms")
        }
    }

    @Test("At expiry serviceExtensionTimeWillExpire's best attempt is shown")
    func bestAttemptAtExpiry() async throws {
        // The grace is the hang guard's: the best attempt comes at once, however long a busy machine takes to hand it.
        try await withExtensionWorld(appWithExtension(.scripted), budget: .seconds(1)) { send in
            let delivery = try await send(Self.script(#"{"action":"hang","atExpiry":"best-attempt","title":"Best attempt"}"#))
            #expect(delivery.run["outcome"] as? String == "expired")
            #expect(delivery.content["title"] as? String == "Best attempt", "\(delivery.run)")
        }
    }

    @Test("The app's own budget overrides the device's")
    func perAppBudget() async throws {
        let app = appWithExtension(.scripted) { $0.budget = 0.5 }
        try await withExtensionWorld(app, grace: .zero) { send in
            let delivery = try await send(Self.script(#"{"action":"hang"}"#))
            #expect(delivery.run["outcome"] as? String == "expired")
            #expect(delivery.diagnostic.contains("within 0.5 seconds"), "the app's budget, not the device's: \(delivery.run)")
        }
    }

    @Test("The first call of the content handler wins; the second is recorded as a violation")
    func calledTwice() async throws {
        try await withExtensionWorld(appWithExtension(.scripted)) { send in
            let delivery = try await send(Self.script(#"{"action":"twice"}"#))
            #expect(delivery.run["outcome"] as? String == "completed")
            #expect(delivery.content["title"] as? String == "first")
            let violations = delivery.run["violations"] as? [String] ?? []
            #expect(violations.count == 1 && violations.first?.contains("2 times") == true, "\(delivery.run)")
        }
    }

    /// Ways the extension dies, the outcome and what the diagnostic says.
    static let deaths: [(script: String, outcome: String, diagnostic: String)] = [
        (#"{"action":"crash"}"#, "crashed", "crashed"),
        (#"{"action":"throw"}"#, "crashed", "threw"),
        (#"{"action":"hold","mib":30}"#, "killed", "over its 24 MiB memory limit"),
    ]

    @Test("A crash, a thrown error or memory over the limit shows the original; the next push starts the process again",
          arguments: deaths.indices)
    func dies(_ index: Int) async throws {
        let death = Self.deaths[index]
        try await withExtensionWorld(appWithExtension(.scripted)) { send in
            let first = try await send(Self.script(#"{"action":"modify","title":"Changed"}"#))
            #expect(first.run["launched"] as? Bool == true)
            let dead = try await send(Self.script(death.script))
            #expect(dead.outcome == "displayed")
            #expect(dead.run["outcome"] as? String == death.outcome, "\(dead.run)")
            #expect(dead.diagnostic.contains(death.diagnostic), "\(dead.run)")
            #expect(dead.content["title"] as? String == "Hello")
            #expect(dead.run["launched"] as? Bool == false, "the process from the first push took it")
            let next = try await send(Self.script(#"{"action":"modify","title":"Changed"}"#))
            #expect(next.run["launched"] as? Bool == true, "a dead process is started again")
            #expect(next.content["title"] as? String == "Changed")
        }
    }

    @Test("Within the memory limit the extension completes")
    func withinMemory() async throws {
        try await withExtensionWorld(appWithExtension(.scripted) { $0.memoryLimitMiB = 48 }) { send in
            let delivery = try await send(Self.script(#"{"action":"hold","mib":30,"title":"Held"}"#))
            #expect(delivery.run["outcome"] as? String == "completed", "\(delivery.run)")
            #expect(delivery.content["title"] as? String == "Held")
        }
    }

    @Test("Empty content suppresses the push with the filtering entitlement; without it, the original is shown")
    func filtering() async throws {
        try await withExtensionWorld(appWithExtension(.scripted) { $0.filtering = true }) { send in
            let delivery = try await send(Self.script(#"{"action":"suppress"}"#))
            #expect(delivery.outcome == "suppressed", "\(delivery.record)")
            #expect(delivery.run["suppressed"] as? Bool == true)
        }
        try await withExtensionWorld(appWithExtension(.scripted)) { send in
            let delivery = try await send(Self.script(#"{"action":"suppress"}"#))
            #expect(delivery.outcome == "displayed")
            #expect(delivery.run["suppressed"] as? Bool == false)
            #expect(delivery.diagnostic.contains("only with the filtering entitlement"), "\(delivery.run)")
            #expect(delivery.content["title"] as? String == "Hello")
        }
    }

    @Test("Content without alert text shows the original")
    func alertRemoved() async throws {
        try await withExtensionWorld(appWithExtension(.scripted)) { send in
            let delivery = try await send(Self.script(#"{"action":"remove-alert"}"#))
            #expect(delivery.content["title"] as? String == "Hello")
            #expect(delivery.diagnostic.contains("removed the alert text"), "\(delivery.run)")
        }
    }

    @Test("One process per app: pushes take turns in it, never two at once")
    func oneAtATime() async throws {
        try await withExtensionWorld(appWithExtension(.scripted)) { send in
            // Each takes 1 s in the extension; side by side they would both be done after about 1 s.
            let started = ContinuousClock.now
            async let first = send(Self.script(#"{"action":"modify","delay":1,"title":"A"}"#))
            async let second = send(Self.script(#"{"action":"modify","delay":1,"title":"B"}"#))
            let (a, b) = try await (first, second)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(1950), "one after the other: \(elapsed)")
            #expect([a.run["launched"], b.run["launched"]].compactMap { $0 as? Bool }.sorted { !$0 && $1 } == [false, true])
            #expect(Set([a.content["title"] as? String, b.content["title"] as? String]) == ["A", "B"])
        }
    }

    /// The first device's extension hangs with a budget it never reaches, so the device is stopped mid-extension
    /// however slow the machine is; the second device's budget is spent, and the best attempt shows it ran.
    @Test("A device stopped while its extension runs gets the push again when it is back, and shows it")
    func stoppedMidExtension() async throws {
        let data = temporaryDirectory()
        let app = appWithExtension(.scripted)
        try await withGateway { harness in
            let control = harness.control
            let apnsID = UUID().uuidString
            let payload = Self.script(#"{"action":"hang","atExpiry":"best-attempt","title":"Late"}"#)
            try await withDevice(harness, dataDirectory: data, apps: [app], extensionBudget: .seconds(600)) { device in
                let token = try #require(device.tokens["com.example.app"])
                let response = try await DeviceDeliveryTests.push(harness, token: token, payload: payload, apnsID: apnsID)
                #expect(response.status == 200)
                // The pending ack is recorded as the push reaching the device; stop the device then.
                try await control.waitUntil("push \(apnsID) acknowledged") {
                    let found = try await control.get("/v1/deliveries?apnsId=\(apnsID)").json as? [[String: Any]]
                    return found?.first?["deliveredAt"] != nil
                }
            }
            let held = try await control.get("/v1/deliveries?apnsId=\(apnsID)").json as? [[String: Any]]
            #expect(held?.first?["deliveredAt"] != nil && held?.first?["outcome"] == nil, "\(held ?? [])")
            try await withDevice(harness, dataDirectory: data, apps: [app], extensionBudget: .seconds(1)) { _ in
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed", "\(record)")
                let run = record["extension"] as? [String: Any]
                #expect(run?["launched"] as? Bool == true)
                #expect(run?["outcome"] as? String == "expired", "\(run ?? [:])")
                #expect((record["content"] as? [String: Any])?["title"] as? String == "Late")
            }
        }
    }
}
