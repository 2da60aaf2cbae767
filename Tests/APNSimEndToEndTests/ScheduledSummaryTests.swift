import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The Scheduled Summary over the real gateway and a real device: what a Focus holds, and what the summary's apps get,
/// waits for it; delivered, it comes highest relevance-score first and is recorded (docs/interactions.md).
@Suite("Scheduled Summary", .endToEnd)
struct ScheduledSummaryTests {
    @Test("Under a Work Focus, held pushes wait for the summary and come highest relevance-score first; a time-sensitive one breaks through; bad input changes nothing")
    func heldInRelevanceOrder() async throws {
        try await withGateway { harness in
            var app = InteractionTests.app()
            app.entitlements = [Interruption.timeSensitiveEntitlement]
            try await withDevice(harness, apps: [app]) { device in
                let control = harness.control
                let refused = try await control.post("/v1/devices/device-1/summary", #"{"times":["8:00","25:00"]}"#)
                #expect(refused.status == 400)
                #expect((refused.json as? [String: Any])?["error"] as? String == "summary time 8:00 is not a time of day as HH:mm (08:00, 18:30)")
                let zone = try await control.post("/v1/devices/device-1/summary", #"{"times":["08:00"],"timeZone":"Mars/Olympus"}"#)
                #expect((zone.json as? [String: Any])?["error"] as? String
                        == "time zone Mars/Olympus is not an IANA time zone name (Europe/Paris, America/New_York, UTC)")
                #expect(try await control.post("/v1/devices/nobody/summary", #"{"times":["08:00"]}"#).status == 409)

                #expect(try await control.post("/v1/devices/device-1/focus", #"{"name":"Work"}"#).status == 200)
                #expect(try await control.post("/v1/devices/device-1/summary", #"{"times":["08:00","18:00"]}"#).status == 200)
                let low = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Newsletter","relevance-score":0.2}}"#)
                let high = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Your order","relevance-score":0.9}}"#)
                let quiet = try await InteractionTests.shown(harness, device,
                                                             #"{"aps":{"alert":"Tip","interruption-level":"passive","relevance-score":0.5}}"#)
                let urgent = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Ride here","interruption-level":"time-sensitive"}}"#)

                let waiting = try #require(try await control.deliveries("apnsId=\(low)").first)
                let presentation = try #require(waiting["presentation"] as? [String: Any])
                #expect(presentation["banner"] as? Bool == false && presentation["list"] as? Bool == false, "\(waiting)")
                let due = try #require(presentation["summary"] as? String)
                #expect(due.hasSuffix(":00Z") && (due.contains("T08:00:00") || due.contains("T18:00:00")), "\(due)")
                let detail = waiting["detail"] as? String ?? ""
                #expect(detail.contains("waiting for the Scheduled Summary at \(due)") && detail.contains("held by the Work Focus"), "\(detail)")
                let through = try #require(try await control.deliveries("apnsId=\(urgent)").first)
                #expect((through["presentation"] as? [String: Any])?["banner"] as? Bool == true, "\(through)")
                #expect((through["presentation"] as? [String: Any])?["summary"] == nil)

                let delivered = try await control.post("/v1/devices/device-1/summary/deliver", "")
                #expect(delivered.status == 200, "\(delivered.json)")
                let summary = try #require(delivered.json as? [String: Any])
                let order = (summary["notifications"] as? [[String: Any]])?.compactMap { $0["apnsId"] as? String }
                #expect(order == [high, quiet, low])
                #expect(summary["scheduledFor"] == nil && (summary["at"] as? String)?.hasSuffix("Z") == true, "\(summary)")
                let listed = try #require(try await control.get("/v1/summaries?device=device-1").json as? [[String: Any]])
                #expect(listed.count == 1 && listed.first?["id"] as? String == summary["id"] as? String)

                let again = try #require(try await control.post("/v1/devices/device-1/summary/deliver", "").json as? [String: Any])
                #expect((again["notifications"] as? [Any])?.isEmpty == true, "each waits for one summary only")
                #expect(try await control.get("/v1/summaries?limit=0").status == 400)

                #expect(try await control.delete("/v1/devices/device-1/summary").status == 200)
                #expect(try await control.delete("/v1/devices/device-1/focus").status == 200)
                let later = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Back"}}"#)
                #expect(((try await control.deliveries("apnsId=\(later)").first)?["presentation"] as? [String: Any])?["banner"] as? Bool == true)
            }
        }
    }
    @Test("apnsim summary sets, delivers (one line per notification, in order) and turns off; bad input is one sentence and exit 1")
    func command() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [InteractionTests.app()]) { device in
                let apnsim = try ApnsimProcess.executable.path
                let url = ["--control-url", "http://127.0.0.1:\(harness.endpoints.controlPort)"]
                let neither = try await ChildProcess.run([apnsim, "summary", "device-1"] + url)
                #expect(neither.status == .exited(1))
                #expect(neither.output == "apnsim: give the summary's times (--at 08:00 --at 18:00), --off, or --deliver: one of them\n")
                let bad = try await ChildProcess.run([apnsim, "summary", "device-1", "--at", "8am"] + url)
                #expect(bad.status == .exited(1) && bad.output == "apnsim: summary time 8am is not a time of day as HH:mm (08:00, 18:30)\n")
                let set = try await ChildProcess.run([apnsim, "summary", "device-1", "--at", "08:00", "--app", "com.example.app"] + url)
                #expect(set.output == "device-1: Scheduled Summary at 08:00 UTC for com.example.app\n")
                let apnsID = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":{"title":"Digest","body":"3 new"}}}"#)
                let delivered = try await ChildProcess.run([apnsim, "summary", "device-1", "--deliver"] + url)
                #expect(delivered.status == .exited(0))
                #expect(delivered.output == "the Scheduled Summary was delivered on request: 1 notification(s), highest relevance-score first\n"
                        + "1. com.example.app \(apnsID) (relevance 0.0) Digest: 3 new\n")
                let off = try await ChildProcess.run([apnsim, "summary", "device-1", "--off"] + url)
                #expect(off.status == .exited(0) && off.output == "device-1: Scheduled Summary off\n")
            }
        }
    }
    @Test("GET /v1/devices lists the Focus and summary set, and a restarted device gets them back before the pushes held for it")
    func keptAcrossRestart() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [InteractionTests.app()]) { device in
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/focus", #"{"name":"Sleep"}"#).status == 200)
                #expect(try await control.post("/v1/devices/device-1/summary", #"{"times":["07:30"],"apps":["com.example.news"]}"#).status == 200)
                let listed = try #require((try await control.get("/v1/devices").json as? [[String: Any]])?.first)
                #expect((listed["focus"] as? [String: Any])?["name"] as? String == "Sleep", "\(listed)")
                #expect((listed["summary"] as? [String: Any])?["times"] as? [String] == ["07:30"], "\(listed)")

                #expect(try await control.post("/v1/devices/device-1/restart").status == 200)
                let held = try await InteractionTests.shown(harness, device, #"{"aps":{"alert":"Overnight"}}"#)
                let record = try #require(try await control.deliveries("apnsId=\(held)").first)
                #expect((record["detail"] as? String)?.contains("held by the Sleep Focus") == true, "\(record)")

                #expect(try await control.delete("/v1/devices/device-1/focus").status == 200)
                #expect(try await control.delete("/v1/devices/device-1/summary").status == 200)
                let cleared = try #require((try await control.get("/v1/devices").json as? [[String: Any]])?.first)
                #expect(cleared["focus"] == nil && cleared["summary"] == nil, "\(cleared)")
            }
        }
    }
}
