import APNSimCore
import APNSimExtensions
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One simulated device: it keeps a device link to the gateway (reconnecting with back-off), installs its apps
/// as iOS would, registers them for remote notifications, and shows what arrives (``NotificationList``),
/// sending the gateway an `ack` and a `receipt` for every push.
///
/// ```swift
/// let host = DeviceHost(configuration: configuration)
/// async let running: Void = host.run()
/// await host.waitUntilRegistered()
/// print(host.tokens["com.example.app"]!)
/// ```
public final class DeviceHost: Sendable {
    public let configuration: DeviceHostConfiguration
    private let logger: Logger
    private let state: Mutex<State>

    private struct State: Sendable {
        var center = NotificationList()
        var installations: Installations
        var categories: RegisteredCategories
        /// Apps that have registered their manifest's categories since this device host started (as an app does
        /// when it launches).
        var launched: Set<String> = []
        var tokens: [String: DeviceToken] = [:]
        var refusals: [String: InstallCheck.Refusal] = [:]
        /// What to call once every app has a token or a refusal.
        var waiters: [UUID: @Sendable () -> Void] = [:]
        var linkDropsLeft: Int
        /// The apps on the device: the configured ones, then whatever the gateway installs or removes.
        var apps: [AppManifest]
        /// The link to the gateway while it is up, for receipts that come after a service extension has run.
        var link: (any Channel)?
        /// Receipts finished while the link was down; sent when it is back.
        var outbox: [DeviceLinkMessage] = []
        /// Pushes whose service extension is running; one sent again meanwhile is not run twice.
        var inExtension: Set<String> = []
        /// Attachments (by SHA-256) whose copy went to the gateway on this link; each goes once per link.
        var copied: Set<String> = []
    }

    /// The TLS context of the device link, when the caller shares one among many hosts (``makeTLSContext(_:)``).
    private let sharedTLSContext: NIOSSLContext?
    private let extensions: ServiceExtensionRuntime

    /// - Parameter tlsContext: a context made once by ``makeTLSContext(_:)`` for many hosts in one process (each
    ///   context holds its certificates and an OpenSSL context, tens of kilobytes); `nil` makes one at ``run()``.
    public init(configuration: DeviceHostConfiguration, logger: Logger = Logger(label: "apnsim.device"),
                tlsContext: NIOSSLContext? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.sharedTLSContext = tlsContext
        let attachments = configuration.dataDirectory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-\(configuration.device.id)")
        self.extensions = ServiceExtensionRuntime(directory: attachments.appendingPathComponent("attachments"),
                                                  budget: configuration.extensionBudget, expiryGrace: configuration.extensionGrace,
                                                  logger: logger)
        var center = NotificationList()
        center.backgroundBudget = configuration.backgroundBudget
        center.activityBudget = configuration.activityBudget
        center.foreground = configuration.foreground
        self.state = Mutex(State(center: center, installations: Installations(directory: configuration.dataDirectory),
                                 categories: RegisteredCategories(directory: configuration.dataDirectory),
                                 linkDropsLeft: configuration.dropLinkBeforeAcknowledging, apps: configuration.apps))
        configuration.group?.add(self)
    }

    /// Each app's token, by bundle ID, once the gateway has issued it.
    public var tokens: [String: DeviceToken] { state.withLock { $0.tokens } }

    /// Apps iOS would not install, by bundle ID, with the reason Xcode or iOS gives.
    public var refusals: [String: InstallCheck.Refusal] { state.withLock { $0.refusals } }

    /// Each app's push-to-start token per `ActivityAttributes` type, by bundle ID, once the gateway has issued them.
    public var pushToStartTokens: [String: [String: DeviceToken]] { state.withLock { $0.center.pushToStartTokensByApp } }

    /// One of the device's Live Activities as it is now, by ID.
    public func state(ofActivity id: String) -> LiveActivity? { state.withLock { $0.center.liveActivities[id] } }

    /// What the device shows, newest first.
    public var displayed: [NotificationList.Displayed] { state.withLock { $0.center.displayed } }

    /// Returns once every app that installs has its token, or when the task is cancelled.
    public func waitUntilRegistered() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Checked under the lock that `onCancel` takes, so a cancellation cannot slip in between.
                addWaiter(id, unlessCancelled: true) { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?()
        }
    }

    /// Whether every app that installs has its token (or its refusal) within `limit`: ``waitUntilRegistered()`` with a
    /// bound, for callers that must report a device that does not register instead of waiting for it forever.
    public func registers(within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { race in
            race.addTask { await self.waitUntilRegistered(); return !Task.isCancelled }
            race.addTask { try? await Task.sleep(for: limit); return false }
            defer { race.cancelAll() }
            return await race.next() ?? false
        }
    }

    /// Calls `body` once every app that installs has its token (at once if they have), without a task to wait in:
    /// a process running thousands of devices reports each this way.
    public func whenRegistered(_ body: @escaping @Sendable () -> Void) {
        addWaiter(UUID(), unlessCancelled: false, body)
    }

    /// Calls `body` now if every app has a token or a refusal (or, with `unlessCancelled`, the task is cancelled),
    /// else keeps it under `id` until they have.
    private func addWaiter(_ id: UUID, unlessCancelled: Bool, _ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if Self.allRegistered(state, apps: state.apps) || (unlessCancelled && Task.isCancelled) { return true }
            state.waiters[id] = body
            return false
        }
        if now { body() }
    }

    private static func allRegistered(_ state: State, apps: [AppManifest]) -> Bool {
        apps.allSatisfy { state.tokens[$0.bundleID] != nil || state.refusals[$0.bundleID] != nil }
    }

    /// The waiters to resume, once every app has a token or a refusal.
    private static func takeWaitersIfRegistered(_ state: inout State, apps: [AppManifest]) -> [@Sendable () -> Void] {
        guard allRegistered(state, apps: apps) else { return [] }
        defer { state.waiters.removeAll() }
        return Array(state.waiters.values)
    }

    /// Keeps the device link up until the task is cancelled.
    public func run() async throws {
        let sslContext = try sharedTLSContext ?? Self.makeTLSContext(configuration.tls)
        defer {
            // The app's extension processes end with the device (an unstructured task: the caller is cancelled).
            let extensions = extensions
            Task { await extensions.shutdown() }
        }
        var backoff: Duration = .milliseconds(100)
        var failing = false
        while !Task.isCancelled {
            do {
                try await runLink(sslContext: sslContext)
                backoff = .milliseconds(100)
                failing = false
            } catch {
                if Task.isCancelled { return }
                // The first failure of a run is a warning, so a device that cannot link says why at the default log
                // level; the retries after it are info, one line per device per outage.
                logger.log(level: failing ? .info : .warning, "device link failed; retrying",
                           metadata: ["device": "\(configuration.device.id)", "error": "\(error)", "in": "\(backoff)"])
                failing = true
            }
            if Task.isCancelled { return }
            // Back-off between reconnection attempts (docs/device-link.md), not a wait for a result.
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, configuration.maximumBackoff)
        }
    }

    /// The device link's TLS context: trust the gateway's CA, present the device identity.
    public static func makeTLSContext(_ files: DeviceHostConfiguration.TLSFiles) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.trustRoots = .file(files.ca)
        // The device link is apnsim's own protocol, so it need not offer BoringSSL's default hybrid post-quantum
        // key share: X25519 alone keeps each handshake's key material near 100 bytes instead of about 10 KB, which
        // is what 10,000 devices connecting at once add up to (Benchmarks/scale.sh).
        tls.curves = [.x25519]
        do {
            tls.certificateChain = try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) }
            tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem))
        } catch {
            throw DeviceError("cannot load the device identity (\(files.certificate), \(files.privateKey)): \(error); run Certs/generate.sh")
        }
        return try NIOSSLContext(configuration: tls)
    }

    /// One device link, until the gateway closes it (returns), it breaks (throws), or the task is cancelled.
    private func runLink(sslContext: NIOSSLContext) async throws {
        let host = configuration.gatewayHost
        // The gateway certificate names localhost and 127.0.0.1; an IP address is checked against the latter.
        let serverName = host.contains(where: \.isLetter) ? host : nil
        let hello = DeviceLinkMessage.hello(.init(device: configuration.device, host: configuration.group?.id))
        let heartbeatInterval = configuration.heartbeatInterval
        // NIO's connect does not end when the task is cancelled: a device stopping while its gateway does not answer
        // (a black-holed address, a full accept queue) waited out the connect timeout. Cancelling closes the
        // attempt's channel instead, connecting or connected, which ends the connect or the link at once.
        let attempt = ConnectAttempt()
        logger.debug("device link connecting", metadata: ["device": "\(configuration.device.id)", "gateway": "\(host):\(configuration.devicePort)"])
        try await withTaskCancellationHandler {
            let (channel, ended) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.init(configuration.connectTimeout))
                // The TCP level's option, not the socket level's (there, number 1 is SO_DEBUG; Listener.swift).
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(host: host, port: configuration.devicePort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try attempt.started(channel)
                        let link = DeviceLinkClientHandler(hello: hello, heartbeatInterval: heartbeatInterval,
                                                           eventLoop: channel.eventLoop) { [self] in try handle($0, on: channel) }
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                        try channel.pipeline.syncOperations.addHandler(link)
                        return (channel, link.ended)
                    }
                }
            defer { state.withLock { if $0.link === channel { $0.link = nil } } }
            try await ended.get()
        } onCancel: {
            attempt.cancel()
        }
    }

    /// The device's answer to one message from the gateway on `link`; throwing ends the link.
    private func handle(_ message: DeviceLinkMessage, on link: any Channel) throws -> [DeviceLinkMessage] {
        let now = configuration.clock.now()
        switch message {
        case .welcome:
            let (answers, waiters) = state.withLock { state -> ([DeviceLinkMessage], [@Sendable () -> Void]) in
                // The link is up from here, in the same lock that empties the outbox: an answer finished from now on
                // (a cached extension build registering its app, a receipt) goes on the link, one finished before
                // waits in the outbox and goes out with these. Set when `connect` returned instead, a build finished
                // between the welcome and that moment went to the outbox and stayed there: its app never
                // registered (one world in 40 with four at once).
                state.link = link
                state.copied.removeAll()
                let registrations = state.apps.compactMap { install($0, state: &state, now: now) }
                defer { state.outbox.removeAll() }
                return (registrations + state.outbox, Self.takeWaitersIfRegistered(&state, apps: state.apps))
            }
            for waiter in waiters { waiter() }
            return answers
        case .registered(let registered):
            let waiters = state.withLock { state -> [@Sendable () -> Void] in
                state.tokens[registered.bundleID] = registered.token
                state.center.setPushToStartTokens(registered.pushToStartTokens ?? [:], for: registered.bundleID)
                return Self.takeWaitersIfRegistered(&state, apps: state.apps)
            }
            for waiter in waiters { waiter() }
            return []
        case .push(let delivery):
            try state.withLock { state in
                if state.linkDropsLeft > 0 {
                    state.linkDropsLeft -= 1
                    throw DeviceError("dropping the link before acknowledging push \(delivery.id) (dropLinkBeforeAcknowledging)")
                }
            }
            return receive(delivery, now: now)
        case .carry(let carry):
            // Applied on the process's event loops in turn rather than on the carrier's: the gateway picks carriers
            // without knowing which of this process's loops their links are on, and often they are all on one.
            MultiThreadedEventLoopGroup.singleton.next().execute {
                let answers = self.carried(carry)
                if !answers.isEmpty { self.send(answers, on: link) }
            }
            return []
        case .heartbeat(let beat):
            return [.heartbeatAck(beat)]
        case .install(let app):
            return state.withLock { state in
                state.apps.removeAll { $0.bundleID == app.bundleID }
                state.apps.append(app)
                state.refusals[app.bundleID] = nil
                state.categories.uninstall(app.bundleID)  // installed again: it registers its categories afresh
                state.launched.remove(app.bundleID)
                return install(app, state: &state, now: now).map { [$0] } ?? []
            }
        case .uninstall(let uninstall):
            return state.withLock { state in
                state.apps.removeAll { $0.bundleID == uninstall.bundleID }
                state.installations.uninstall(uninstall.bundleID)
                state.categories.uninstall(uninstall.bundleID)
                state.refusals[uninstall.bundleID] = nil
                guard let token = state.tokens.removeValue(forKey: uninstall.bundleID) else { return [] }
                return [.unregister(.init(token: token))]
            }
        case .foreground(let foreground):
            let options = foreground.options.map { Set($0.compactMap(PresentationOption.init(rawValue:))) }
            state.withLock { $0.center.foreground[foreground.bundleID] = options }
            return []
        case .startActivity(let start):
            state.withLock { $0.center.start(start.activity) }
            return []
        case .endActivity(let end):
            state.withLock { $0.center.end(end) }
            return []
        case .restart:
            // A reboot: the apps' extension processes end and the link drops; the run loop links again at once.
            let extensions = extensions
            Task { await extensions.shutdown() }
            throw DeviceRestarted()
        case .heartbeatAck, .error, .hello, .register, .unregister, .ack, .receipt, .receipts, .installRefused, .attachmentCopy:
            return []
        }
    }

    /// What the device does with a push: its receipt at once, or a pending ack while the app's extension runs.
    /// `payload`: the delivery's payload, when the caller has read it (once for a broadcast's carried pushes).
    func receive(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload? = nil, now: Date) -> [DeviceLinkMessage] {
        messages(answering: delivery, with: answer(delivery, payload: payload, now: now))
    }

    /// What the device does with a push (``receive(_:payload:now:)``), before it becomes messages.
    private func answer(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload?, now: Date) -> PushAnswer {
        state.withLock { state -> PushAnswer in
            let decision = Self.serviceExtension(for: delivery, apps: state.apps, configuration: configuration)
            // A push answered before gets the same receipt (without an extension, the list itself sees to that).
            if decision.involvesExtension, let receipt = state.center.receipt(for: delivery.id) { return .receipts([receipt]) }
            switch decision {
            case .none:
                return .receipts(state.center.receive(delivery, payload: payload, now: now, categories: state.categories[delivery.bundleID],
                                                      app: state.apps.first { $0.bundleID == delivery.bundleID }))
            case .launch(let app, let payload):
                return state.inExtension.insert(delivery.id).inserted ? .launch(app, payload) : .stillInExtension
            case .notLaunched(let manifest, let payload, let why):
                let run = ExtensionRun(ran: false, kind: manifest.kind, outcome: .notLaunched, diagnostic: why)
                return .receipts(state.center.receive(delivery, payload: payload, now: now, processed: (payload.content, run),
                                                      categories: state.categories[delivery.bundleID]))
            }
        }
    }

    /// The messages that answer `delivery`: its receipts, or a pending ack while the app's extension runs.
    private func messages(answering delivery: DeviceLinkMessage.Delivery, with answer: PushAnswer) -> [DeviceLinkMessage] {
        switch answer {
        case .receipts(let receipts):
            // The receipt comes at once, and a receipt acknowledges its push (docs/device-link.md).
            return receipts.map { .receipt($0) }
        case .launch(let app, let payload):
            // The push has arrived: a pending ack now, the receipt once the extension is done (docs/device-link.md).
            Task { await self.runExtension(of: app, payload: payload, on: delivery) }
            return [.ack(.init(id: delivery.id, pending: true))]
        case .stillInExtension:
            return [.ack(.init(id: delivery.id, pending: true))]
        }
    }

    /// Pushes the gateway carried on this link for devices of this process: each goes to its device, and their
    /// receipts go back together (``DeviceLinkMessage/Receipts``). A push for a device this process does not host is
    /// left unanswered: the gateway sends it on that device's own link should this one end.
    private func carried(_ carry: DeviceLinkMessage.Carry) -> [DeviceLinkMessage] {
        var receipts: [DeviceLinkMessage.CarriedReceipt] = []
        var answers: [DeviceLinkMessage] = []
        var read: (text: String, payload: PushPayload?)?  // a broadcast's pushes share one payload: read it once
        let hosts = configuration.group?.hosts(carry.pushes.lazy.map(\.device))  // one for each push, under one lock
        receipts.reserveCapacity(carry.pushes.count)
        for (index, item) in carry.pushes.enumerated() {
            if read?.text != item.body.payload { read = (item.body.payload, try? PushPayload(json: Array(item.body.payload.utf8))) }
            guard let host = item.device == configuration.device.id ? self : hosts?[index] ?? nil else {
                logger.warning("carried push for a device this process does not host", metadata: ["device": "\(item.device)"])
                continue
            }
            let answer = host.answer(item.body, payload: read?.payload, now: host.configuration.clock.now())
            if case .receipts(let answered) = answer {  // the usual case: taken as they are, not made messages first
                for receipt in answered { receipts.append(.init(device: item.device, body: receipt.carried)) }
                continue
            }
            for message in host.messages(answering: item.body, with: answer) {
                if host === self {
                    answers.append(message)
                } else {
                    host.send([message], on: host.state.withLock { $0.link })  // a pending ack goes on its own link
                }
            }
        }
        return answers + (receipts.isEmpty ? [] : [.receipts(.init(receipts: receipts))])
    }

    private enum ExtensionDecision {
        /// The app has no extension, or the push is not an alert.
        case none
        /// The app's extension runs on the push.
        case launch(AppManifest, PushPayload)
        /// iOS would skip the extension; the record says why.
        case notLaunched(ServiceExtensionManifest, PushPayload, String)

        var involvesExtension: Bool {
            if case .none = self { false } else { true }
        }
    }

    /// What the device does with a push.
    private enum PushAnswer {
        /// Its receipts, at once.
        case receipts([DeviceLinkMessage.Receipt])
        /// Start the app's extension on it.
        case launch(AppManifest, PushPayload)
        /// A push sent again while its extension still runs.
        case stillInExtension
    }

    /// Whether iOS would start the app's extension for an alert push (``ServiceExtensionManifest/reasonNotLaunched``).
    private static func serviceExtension(for delivery: DeviceLinkMessage.Delivery, apps: [AppManifest],
                                         configuration: DeviceHostConfiguration) -> ExtensionDecision {
        guard delivery.pushType == .alert,
              let app = apps.first(where: { $0.bundleID == delivery.bundleID }), let manifest = app.serviceExtension,
              let payload = try? PushPayload(json: Array(delivery.payload.utf8)) else { return .none }
        let settings = ServiceExtensionManifest.DeviceSettings(alertsEnabled: !configuration.alertsOff.contains(app.bundleID),
                                                               categoriesApply: configuration.extensionCategoriesApply)
        if let why = manifest.reasonNotLaunched(payload: payload, deviceOS: configuration.device.os, settings: settings) {
            return .notLaunched(manifest, payload, why)
        }
        return .launch(app, payload)
    }

    /// Runs the app's extension on `delivery`, then shows the result and sends the receipts (or keeps them for the
    /// next link).
    private func runExtension(of app: AppManifest, payload: PushPayload, on delivery: DeviceLinkMessage.Delivery) async {
        guard let manifest = app.serviceExtension else { return }
        let registered = state.withLock { $0.categories[app.bundleID] }
        let (content, run) = await extensions.run(manifest, app: app, content: payload.content,
                                                  deliveryID: delivery.id, categories: registered)
        let now = configuration.clock.now()
        let (receipts, link, copies) = state.withLock { state in
            state.inExtension.remove(delivery.id)
            // Categories the extension set are the app's from now on, this push's buttons included.
            if let registered = run.registeredCategories { state.categories.set(registered, for: app.bundleID) }
            let receipts = state.center.receive(delivery, payload: payload, now: now, processed: (content, run),
                                                categories: state.categories[app.bundleID])
            let shown = receipts.first { $0.id == delivery.id && $0.outcome == .displayed }?.content?.attachments ?? []
            let copies = shown.filter { $0.file != nil && state.copied.insert($0.sha256).inserted }
            return (receipts.map { DeviceLinkMessage.receipt($0) }, state.link, copies)
        }
        // The copies go first, so the inbox has the device's own copy by the time it sees the receipt.
        send(copies.flatMap(Self.copyMessages) + receipts, on: link)
    }

    /// The bytes of an attachment the device shows, as the device link carries them to the gateway; none when the
    /// file is gone (the inbox then shows the source URL's). The gateway checks them against the SHA-256.
    private static func copyMessages(of attachment: NotificationContent.Attachment) -> [DeviceLinkMessage] {
        guard let file = attachment.file, let data = FileManager.default.contents(atPath: file) else { return [] }
        return DeviceLinkMessage.AttachmentCopy.messages(for: [UInt8](data), sha256: attachment.sha256, uti: attachment.type)
    }

    /// Sends `messages` on `link`, or keeps them for the next link when it is down or the write fails.
    private func send(_ messages: [DeviceLinkMessage], on link: (any Channel)?) {
        guard let link, link.isActive else {
            state.withLock { $0.outbox += messages }
            return
        }
        let bytes = messages.flatMap { DeviceLinkFraming.frame($0) }
        link.writeAndFlush(ByteBuffer(bytes: bytes)).whenFailure { _ in
            self.state.withLock { $0.outbox += messages }
        }
    }

    /// Installs `app` if iOS would: a registration to send, or the refusal to report; `nil` while its kind `swift`
    /// extension builds (the answer is sent when the build is done).
    private func install(_ app: AppManifest, state: inout State, now: Date) -> DeviceLinkMessage? {
        if let refusal = InstallCheck.refusal(for: app, now: now) {
            return refuse(app, refusal, state: &state)
        }
        if let manifest = app.serviceExtension, manifest.kind == .swift {
            Task { await self.install(app, building: manifest) }
            return nil
        }
        return registration(app, state: &state)
    }

    /// Builds the app's own Swift extension, then registers the app, or refuses it with the compiler's messages.
    private func install(_ app: AppManifest, building manifest: ServiceExtensionManifest) async {
        let failure = await extensions.prepare(manifest)
        let (message, waiters, link) = state.withLock { state -> (DeviceLinkMessage?, [@Sendable () -> Void], (any Channel)?) in
            guard state.apps.contains(app) else { return (nil, [], nil) }  // removed or replaced while it built
            let message = failure.map { failure in
                refuse(app, .init(kind: .extensionBuild, description: "The notification service extension \(manifest.bundleID) cannot be built: \(failure)"),
                       state: &state)
            } ?? registration(app, state: &state)
            return (message, Self.takeWaitersIfRegistered(&state, apps: state.apps), state.link)
        }
        for waiter in waiters { waiter() }
        if let message { send([message], on: link) }
    }

    private func refuse(_ app: AppManifest, _ refusal: InstallCheck.Refusal, state: inout State) -> DeviceLinkMessage {
        state.refusals[app.bundleID] = refusal
        logger.warning("app not installed", metadata: ["bundle": "\(app.bundleID)", "reason": "\(refusal)"])
        return .installRefused(.init(bundleID: app.bundleID, kind: refusal.kind, message: refusal.description))
    }

    private func registration(_ app: AppManifest, state: inout State) -> DeviceLinkMessage {
        // Installed, the app launches and registers its categories, replacing those it or its extension registered
        // before (apps call setNotificationCategories at launch). An app whose manifest names none keeps them.
        if state.launched.insert(app.bundleID).inserted, let categories = app.categories { state.categories.set(categories, for: app.bundleID) }
        let installation = state.installations.id(for: app.bundleID)
        return .register(.init(bundleID: app.bundleID, environment: app.apsEnvironment ?? .development,
                               installation: installation, team: app.team, badge: state.center.badges[app.bundleID],
                               pushToStartTypes: app.activityTypes?.map(\.name),
                               activities: state.center.liveActivities.values.filter { $0.bundleID == app.bundleID }
                                   .sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }))
    }
}

/// A device set-up problem, said in a sentence.
public struct DeviceError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The gateway asked the device to restart: its link ends, and the device links again.
struct DeviceRestarted: Error, CustomStringConvertible {
    var description: String { "the device restarted" }
}

/// The channel of a connection attempt, so cancelling the task can close it, whether it is connecting or connected.
private final class ConnectAttempt: Sendable {
    private let state = Mutex<(channel: (any Channel)?, cancelled: Bool)>((nil, false))

    /// Called in the channel initializer; throws if the task was cancelled before the channel existed.
    func started(_ channel: any Channel) throws {
        let cancelled = state.withLock { state in
            state.channel = channel
            return state.cancelled
        }
        if cancelled { throw CancellationError() }
    }

    func cancel() {
        let channel = state.withLock { state in
            state.cancelled = true
            return state.channel
        }
        channel?.close(promise: nil)
    }
}
