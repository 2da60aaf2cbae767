@testable import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// A device's rules (``DeviceState``), without sockets: each event of its link and what it asks the host to do.
@Suite("Device state")
struct DeviceStateTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let device = DeviceDescriptor(id: "d1", name: "Phone", model: "iPhone16,1", os: "iOS 18.1")

    static func app(_ bundleID: String = "com.example.app", extension kind: ExtensionKind? = nil) -> AppManifest {
        var app = AppManifest.signed(bundleID: bundleID, team: "SIMTEAM001", environment: .development, now: now)
        app.serviceExtension = kind.map { ServiceExtensionManifest(bundleID: "\(bundleID).NotificationService", kind: $0) }
        return app
    }

    static func state(_ apps: [AppManifest] = [app()], alertsOff: Set<String> = [], linkDrops: Int = 0) -> DeviceState {
        DeviceState(settings: .init(device: device, alertsOff: alertsOff), apps: apps, linkDrops: linkDrops)
    }

    static func push(_ payload: String = #"{"aps":{"alert":"Hi"}}"#, id: String = "p1", bundleID: String = "com.example.app") -> DeviceLinkMessage.Delivery {
        .init(id: id, apnsID: "APNS-\(id)", token: token, bundleID: bundleID, pushType: .alert, priority: 10, collapseID: nil, payload: payload)
    }

    static let mutable = #"{"aps":{"alert":"Hi","mutable-content":1}}"#

    static func registered(_ bundleID: String = "com.example.app") -> DeviceLinkMessage.ToDevice {
        .registered(.init(bundleID: bundleID, environment: .development, token: token))
    }

    /// The state linked and every app registered.
    static func linkedAndRegistered(_ apps: [AppManifest] = [app()], linkDrops: Int = 0) throws -> DeviceState {
        var state = state(apps, linkDrops: linkDrops)
        _ = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: now)
        for app in apps { _ = try state.handle(registered(app.bundleID), now: now) }
        return state
    }

    @Test("Welcomed, every app asks for its token with its installation and team; registered once every app has one")
    func welcomeRegisters() throws {
        var state = Self.state([Self.app(), Self.app("com.example.other")])
        let welcomed = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        let registrations = welcomed.send.compactMap { message -> DeviceLinkMessage.Registration? in
            if case .register(let registration) = message { registration } else { nil }
        }
        #expect(registrations.map(\.bundleID) == ["com.example.app", "com.example.other"])
        #expect(registrations.allSatisfy { $0.team == "SIMTEAM001" && $0.environment == .development })
        #expect(!welcomed.registered && !state.isRegistered)
        #expect(try !state.handle(Self.registered(), now: Self.now).registered)
        #expect(try state.handle(Self.registered("com.example.other"), now: Self.now).registered)
        #expect(state.tokens["com.example.other"] == Self.token)
        let again = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        #expect(again.send.compactMap { message -> String? in
            if case .register(let registration) = message { registration.installation } else { nil }
        } == registrations.map(\.installation), "linking again, the same installation: the same token")
    }

    @Test("An app iOS would not install is refused with its reason, and counts as answered")
    func refusal() throws {
        var expired = Self.app()
        expired.profile.expires = Self.now.addingTimeInterval(-60)
        var state = Self.state([expired])
        let welcomed = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        guard case .installRefused(let refused)? = welcomed.send.first else { Issue.record("no refusal: \(welcomed.send)"); return }
        #expect(refused.bundleID == "com.example.app")
        #expect(welcomed.registered && state.refusals["com.example.app"] != nil)
    }

    @Test("A kind swift extension builds first: a build that fails refuses the app with the compiler's words, one that works registers it")
    func swiftBuild() throws {
        var app = Self.app(extension: .swift)
        app.serviceExtension?.source = "/tmp/none"
        var state = Self.state([app])
        let welcomed = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        #expect(welcomed.send.isEmpty)
        guard case .build(let building)? = welcomed.jobs.first else { Issue.record("no build: \(welcomed.jobs)"); return }
        let failed = state.built(building, failure: "NotificationService.swift:3:1: error: expected expression")
        guard case .installRefused(let refused)? = failed.send.first else { Issue.record("no refusal: \(failed.send)"); return }
        #expect(refused.kind == .extensionBuild && refused.message.contains("expected expression"))
        #expect(failed.registered)

        var working = Self.state([app])
        _ = try working.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        working.unlinked()
        let built = working.built(app, failure: nil)
        #expect(built.send.isEmpty, "the link is down: the registration waits")
        let relinked = try working.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        #expect(relinked.jobs.count == 1, "linking again starts the build again (a cached one ends at once)")
        #expect(relinked.send.contains { if case .register = $0 { true } else { false } }, "the waiting registration goes out")

        var replaced = Self.state([app])
        _ = try replaced.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        _ = try replaced.handle(.uninstall(.init(bundleID: app.bundleID)), now: Self.now)
        #expect(replaced.built(app, failure: nil).send.isEmpty, "removed while it built: nothing to say")
    }

    @Test("A push is answered with its receipt at once; sent again, with the same receipt and nothing shown twice")
    func pushReceipt() throws {
        var state = try Self.linkedAndRegistered()
        let first = try state.handle(.push(Self.push()), now: Self.now)
        guard case .receipt(let receipt)? = first.send.first else { Issue.record("no receipt: \(first.send)"); return }
        #expect(receipt.outcome == .displayed)
        #expect(first.written[receipt.id]?.receipt == receipt, "sent as it is kept, written once")
        let again = try state.handle(.push(Self.push()), now: Self.now)
        #expect(again.send == first.send)
        #expect(again.written[receipt.id]?.receipt == receipt)
        #expect(state.center.displayed.count == 1)
    }

    @Test("A push that replaces a shown one sends the older push's receipt first and its own last, with or without an extension",
          arguments: [false, true])
    func replacedFirst(extensionRuns: Bool) throws {
        var state = try Self.linkedAndRegistered([Self.app(extension: extensionRuns ? .braze : nil)])
        func collapsing(_ id: String) -> DeviceLinkMessage.Delivery {
            var push = Self.push(extensionRuns ? Self.mutable : #"{"aps":{"alert":"Hi"}}"#, id: id)
            push.collapseID = "score"
            return push
        }
        func answered(_ push: DeviceLinkMessage.Delivery) throws -> [DeviceLinkMessage.Written] {
            let actions = try state.handle(.push(push), now: Self.now)
            guard extensionRuns else { return actions.send }
            guard case .run(let app, let payload, _)? = actions.jobs.first else { Issue.record("no run: \(actions.jobs)"); return [] }
            let run = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "")
            return state.extensionFinished(app, delivery: push, payload: payload, content: payload.content, run: run, now: Self.now).send
        }
        _ = try answered(collapsing("p1"))
        let receipts = try answered(collapsing("p2")).compactMap { message -> DeviceLinkMessage.Receipt? in
            if case .receipt(let receipt) = message { receipt } else { nil }
        }
        // The gateway records receipts as they come; a reader who sees p2 displayed must see p1 replaced.
        #expect(receipts.map(\.id) == ["p1", "p2"])
        #expect(receipts.map(\.outcome) == [.replaced, .displayed])
        #expect(state.center.receipt(for: "p2")?.outcome == .displayed, "kept as the answer to p2, should it come again")
    }

    @Test("A mutable-content alert starts the app's extension: a pending ack now, the receipt when it is done, once")
    func extensionRun() throws {
        var state = try Self.linkedAndRegistered([Self.app(extension: .braze)])
        let push = Self.push(Self.mutable)
        let started = try state.handle(.push(push), now: Self.now)
        #expect(started.send == [.ack(.init(id: "p1", pending: true))])
        guard case .run(let app, let payload, _)? = started.jobs.first else { Issue.record("no run: \(started.jobs)"); return }
        let meanwhile = try state.handle(.push(push), now: Self.now)
        #expect(meanwhile.send == [.ack(.init(id: "p1", pending: true))])
        #expect(meanwhile.jobs.isEmpty, "sent again while it runs: not run twice")
        var content = payload.content
        content.title = "Changed"
        let run = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "")
        let finished = state.extensionFinished(app, delivery: push, payload: payload, content: content, run: run, now: Self.now)
        guard case .receipt(let receipt)? = finished.send.first else { Issue.record("no receipt: \(finished.send)"); return }
        #expect(receipt.content?.title == "Changed")
        #expect(receipt.extensionRun?.outcome == .completed)
        #expect(finished.written[receipt.id]?.receipt == receipt, "sent as it is kept, written once")
        let after = try state.handle(.push(push), now: Self.now)
        #expect(after.send == finished.send && after.jobs.isEmpty, "answered: the same receipt")
    }

    @Test("A receipt finished while the link is down waits, and goes after the registrations of the next welcome")
    func outbox() throws {
        var state = try Self.linkedAndRegistered([Self.app(extension: .braze)])
        let push = Self.push(Self.mutable)
        guard case .run(let app, let payload, _)? = try state.handle(.push(push), now: Self.now).jobs.first else { Issue.record("no run"); return }
        state.unlinked()
        let finished = state.extensionFinished(app, delivery: push, payload: payload, content: payload.content,
                                               run: ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: ""), now: Self.now)
        #expect(finished.send.isEmpty && finished.written.isEmpty)
        #expect(state.outbox.count == 1)
        let welcomed = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        #expect(welcomed.send.map(\.type) == ["register", "receipt"])
        #expect(state.outbox.isEmpty)
    }

    @Test("With alerts off iOS skips the extension, and the receipt says why")
    func alertsOff() throws {
        var state = Self.state([Self.app(extension: .braze)], alertsOff: ["com.example.app"])
        _ = try state.handle(.welcome(.init(heartbeatInterval: 15)), now: Self.now)
        let answered = try state.handle(.push(Self.push(Self.mutable)), now: Self.now)
        guard case .receipt(let receipt)? = answered.send.first else { Issue.record("no receipt: \(answered.send)"); return }
        #expect(receipt.extensionRun?.ran == false)
        #expect(receipt.extensionRun?.outcome == .notLaunched)
        #expect(answered.jobs.isEmpty)
    }

    @Test("A device told to drop its link before acknowledging throws on that many pushes, then answers")
    func linkDrops() throws {
        var state = try Self.linkedAndRegistered(linkDrops: 1)
        #expect(throws: DeviceError.self) { try state.handle(.push(Self.push()), now: Self.now) }
        #expect(try state.handle(.push(Self.push()), now: Self.now).send.first?.type == "receipt")
    }

    @Test("Install replaces the app and registers it; uninstall gives its token back; restart and heartbeat are answered")
    func installAndUninstall() throws {
        var state = try Self.linkedAndRegistered()
        let installed = try state.handle(.install(Self.app("com.example.new")), now: Self.now)
        #expect(installed.send.map(\.type) == ["register"])
        #expect(state.apps.map(\.bundleID) == ["com.example.app", "com.example.new"])
        let removed = try state.handle(.uninstall(.init(bundleID: "com.example.app")), now: Self.now)
        #expect(removed.send == [.unregister(.init(token: Self.token))])
        #expect(try state.handle(.uninstall(.init(bundleID: "com.example.gone")), now: Self.now).send.isEmpty)
        #expect(try state.handle(.restart(.init()), now: Self.now).restart)
        #expect(try state.handle(.heartbeat(.init(sequence: 3)), now: Self.now).send == [.heartbeatAck(.init(sequence: 3))])
    }

    @Test("In the foreground, what willPresent returns decides where a push shows")
    func foreground() throws {
        var state = try Self.linkedAndRegistered()
        _ = try state.handle(.foreground(.init(bundleID: "com.example.app", options: ["list"])), now: Self.now)
        guard case .receipt(let receipt)? = try state.handle(.push(Self.push()), now: Self.now).send.first else { Issue.record("no receipt"); return }
        #expect(receipt.presentation?.banner == false && receipt.presentation?.list == true)
    }
}

@Suite("Device state: answers remembered")
struct AnsweredMemoTests {
    @Test("The newest receipts are kept whole; a push sent again after its receipt was let go is acked as forgotten, never shown twice")
    func forgotten() throws {
        var state = try DeviceStateTests.linkedAndRegistered()
        let total = ReceiptMemo.wholeReceipts * 2
        for index in 1...total {
            _ = try state.handle(.push(DeviceStateTests.push(#"{"aps":{"alert":"n"}}"#, id: "p\(index)")), now: DeviceStateTests.now)
        }
        let shown = state.center.displayed.count
        let newest = try state.handle(.push(DeviceStateTests.push(#"{"aps":{"alert":"n"}}"#, id: "p\(total)")), now: DeviceStateTests.now)
        #expect(newest.send.first?.type == "receipt", "the newest: the same receipt")
        let oldest = try state.handle(.push(DeviceStateTests.push(#"{"aps":{"alert":"n"}}"#, id: "p1")), now: DeviceStateTests.now)
        #expect(oldest.send == [.ack(.init(id: "p1", forgotten: true))])
        #expect(state.center.displayed.count == shown, "nothing shown twice")
        let fresh = try state.handle(.push(DeviceStateTests.push(#"{"aps":{"alert":"n"}}"#, id: "new")), now: DeviceStateTests.now)
        #expect(fresh.send.first?.type == "receipt")
    }
}
