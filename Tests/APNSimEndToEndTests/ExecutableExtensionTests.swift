import APNSimDevice
import APNSimExtensions
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Logging
import Testing

/// Extensions of kind `executable` (docs/extension-protocol.md): the Python example in Scenarios/extensions runs
/// as a scenario; these are executables that misbehave, each with a clear sentence on the record while the
/// device keeps serving.
@Suite("Service extensions: executables", .endToEnd)
struct ExecutableExtensionTests {
    static func app(_ command: [String], _ change: (inout ServiceExtensionManifest) -> Void = { _ in }) -> AppManifest {
        appWithExtension(.executable) { manifest in
            manifest.executable = command
            change(&manifest)
        }
    }

    /// A Python extension that answers each request with `reply`, a Python expression over `request`.
    static func python(_ body: String) -> [String] {
        ["python3", "-c", """
        import json, sys
        def send(content, id):
            sys.stdout.write(json.dumps({"type": "content", "id": id, "content": content}) + "\\n"); sys.stdout.flush()
        for line in sys.stdin:
            request = json.loads(line)
            if request["type"] != "request": continue
            content = request["content"]
        \(body.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        """]
    }

    /// Executables that go wrong, the outcome and what the diagnostic says.
    static let broken: [(name: String, command: [String], outcome: String, diagnostic: String)] = [
        ("missing", ["/nonexistent/NotificationService"], "crashed", "cannot start the extension"),
        ("exits", ["sh", "-c", "read line; exit 3"], "crashed", "exited with status 3"),
        ("writes garbage", ["sh", "-c", "read line; echo hello; sleep 30"], "crashed", "wrote \"hello\", which is not a protocol message"),
        ("writes nothing", ["sh", "-c", "sleep 30"], "expired", "did not call its content handler"),
        ("holds too much memory", python("block = bytearray(64 << 20)\nfor i in range(0, len(block), 4096): block[i] = 1\nimport time; time.sleep(30)"),
         "killed", "memory limit"),
        ("removes the alert text", python("content['title'] = None; content['body'] = None\nsend(content, request['id'])"),
         "completed", "removed the alert text"),
    ]

    @Test("A missing, crashing, babbling, silent or greedy executable shows the original with a sentence; the next push starts it again",
          arguments: broken.indices)
    func misbehaves(_ index: Int) async throws {
        let broken = Self.broken[index]
        // 1 s where the budget is the point; elsewhere a budget no start of Python on a busy machine comes near.
        let budget = broken.outcome == "expired" ? 1.0 : 300.0
        try await withExtensionWorld(Self.app(broken.command) { $0.budget = budget }, grace: .milliseconds(300)) { send in
            let delivery = try await send(richPush(#""n":1"#))
            #expect(delivery.outcome == "displayed", "\(broken.name)")
            #expect(delivery.run["outcome"] as? String == broken.outcome, "\(broken.name): \(delivery.run)")
            #expect(delivery.diagnostic.contains(broken.diagnostic), "\(broken.name): \(delivery.run)")
            #expect(delivery.content["title"] as? String == "Hello")
            let next = try await send(richPush(#""n":2"#))
            #expect(next.run["outcome"] as? String == broken.outcome, "\(broken.name), again: \(next.run)")
            if broken.outcome != "completed" { #expect(next.run["launched"] as? Bool == true, "\(broken.name): a new process") }
        }
    }

    @Test("An executable that calls its handler twice: the first wins, the second is a violation; one process serves every push")
    func twice() async throws {
        // Both calls in one write: the second is read with the first, before the turn's settle time after the first
        // call has begun (two writes a scheduler parts by more than that would make the verdict the machine's speed).
        let command = Self.python("""
            calls = [{"type": "content", "id": request["id"], "content": dict(content, title=title)} for title in ("first", "second")]
            sys.stdout.write("".join(json.dumps(call) + "\\n" for call in calls)); sys.stdout.flush()
            """)
        try await withExtensionWorld(Self.app(command)) { send in
            let delivery = try await send(richPush(#""n":1"#))
            #expect(delivery.content["title"] as? String == "first", "\(delivery.run)")
            #expect((delivery.run["violations"] as? [String])?.count == 1, "\(delivery.run)")
            let next = try await send(richPush(#""n":2"#))
            #expect(next.run["launched"] as? Bool == false, "the same process: \(next.run)")
        }
    }

    @Test("Empty content from an executable with the filtering entitlement suppresses the push")
    func suppresses() async throws {
        try await withExtensionWorld(Self.app(Self.python("send({}, request['id'])")) { $0.filtering = true }) { send in
            let delivery = try await send(richPush(#""n":1"#))
            #expect(delivery.outcome == "suppressed", "\(delivery.record)")
        }
    }

    @Test("While one app's executable misbehaves, the device keeps serving its other apps")
    func otherAppsServed() async throws {
        let other = AppManifest.signed(bundleID: "com.example.other", team: TestWorld.team, environment: .development, now: Date())
        try await withGateway { harness in
            try await withDevice(harness, apps: [Self.app(["sh", "-c", "read line; echo garbage; sleep 30"]), other]) { device in
                let control = harness.control
                let broken = UUID().uuidString, fine = UUID().uuidString
                let client = try await harness.connect()
                let jwt = harness.jwt()  // one token per connection: a new one each time is TooManyProviderTokenUpdates
                defer { Task { await client.close() } }
                let first = try await client.send(.push(token: try #require(device.tokens["com.example.app"]).hex, payload: richPush(#""n":1"#),
                                                headers: harness.headers(jwt: jwt, extra: [("apns-id", broken)])))
                #expect(first.status == 200)
                let second = try await client.send(.push(token: try #require(device.tokens["com.example.other"]).hex, payload: GatewayHarness.alert,
                                                headers: harness.headers(jwt: jwt, topic: "com.example.other", extra: [("apns-id", fine)])))
                #expect(second.status == 200, "\(second)")
                let shown = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: fine))
                #expect(shown["outcome"] as? String == "displayed")
                let crashed = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: broken))
                #expect((crashed["extension"] as? [String: Any])?["outcome"] as? String == "crashed", "\(crashed)")
            }
        }
    }

    @Test("An app whose own Swift extension does not build is refused with the compiler's message; its device serves its other apps")
    func brokenSwiftSource() async throws {
        let broken = appWithExtension(.swift) { manifest in
            manifest.source = repositoryRoot.appendingPathComponent("Scenarios/extensions/swift-broken/NotificationService.swift").path
        }
        let other = AppManifest.signed(bundleID: "com.example.other", team: TestWorld.team, environment: .development, now: Date())
        try await withGateway { harness in
            try await withDevice(harness, apps: [broken, other]) { device in
                let refusal = try #require(device.refusals["com.example.app"])
                #expect(refusal.kind == .extensionBuild)
                #expect(refusal.description.contains("NotificationService.swift:9:48: error:"), "\(refusal)")
                #expect(device.tokens["com.example.app"] == nil)
                let fine = UUID().uuidString
                let client = try await harness.connect()
                defer { Task { await client.close() } }
                let response = try await client.send(.push(token: try #require(device.tokens["com.example.other"]).hex, payload: GatewayHarness.alert,
                                                           headers: harness.headers(jwt: harness.jwt(), topic: "com.example.other", extra: [("apns-id", fine)])))
                #expect(response.status == 200, "\(response)")
                let shown = try await DeviceDeliveryTests.delivery(harness.control, apnsID: fine)
                #expect(shown?["outcome"] as? String == "displayed")
            }
        }
    }

    @Test("An app whose own delegate does not build is refused with the compiler's message, naming the delegate's source")
    func brokenDelegateSource() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-broken-delegate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("AppDelegate.swift")
        try Data("import UserNotifications\nclass AppDelegate: NSObject, UNUserNotificationCenterDelegate {\n    let x: Int = \"no\"\n}\n".utf8).write(to: source)
        var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
        app.responses = .init(delegate: .init(source: source.path))
        try await withGateway { [app] harness in
            try await withDevice(harness, apps: [app]) { device in
                let refusal = try #require(device.refusals["com.example.app"])
                #expect(refusal.kind == .extensionBuild)
                #expect(refusal.description.hasPrefix("The app's notification delegate cannot be built: \(source.path) does not build: "), "\(refusal)")
                #expect(refusal.description.contains("AppDelegate.swift:3:18: error:"), "\(refusal)")
            }
        }
    }
}
