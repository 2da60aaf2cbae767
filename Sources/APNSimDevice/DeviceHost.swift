import APNSimDeviceLink
import APNSimExtensions
import APNSimRules
import Foundation
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// One simulated device: it keeps a device link to the gateway (``run()``, reconnecting with back-off), and carries
/// out what its rules (``DeviceState``) decide for each message: answers on the link, extension builds and runs in
/// tasks it owns, waiters told once every app is registered.
///
/// ```swift
/// let host = DeviceHost(configuration: configuration)
/// async let running: Void = host.run()
/// await host.waitUntilRegistered()
/// print(host.tokens["com.example.app"]!)
/// ```
public final class DeviceHost: Sendable {
    public let configuration: DeviceHostConfiguration
    let logger: Logger
    let held: Mutex<Held>

    /// What the lock guards: the device's state, and the link and waiters that carry out its actions.
    struct Held: Sendable {
        var state: DeviceState
        /// The way to the gateway while the device's session is up, for answers that come after a job.
        var link: DeviceRoute?
        /// What to call once every app has a token or a refusal.
        var waiters: [UUID: @Sendable () -> Void] = [:]
    }

    /// The TLS context of the device link, when the caller shares one among many hosts (``makeTLSContext(_:)``).
    let sharedTLSContext: NIOSSLContext?
    /// The app extensions' runtime, made when the first one is needed: a device whose apps never run an extension (most
    /// of a fleet of 100,000) holds none.
    private let extensionRuntime = Mutex<ServiceExtensionRuntime?>(nil)
    /// The apps' own delegates' runtime, made when the first app that has one installs.
    private let delegateRuntime = Mutex<AppDelegateRuntime?>(nil)
    /// Where the device keeps what it keeps across restarts: its own folder, or its fleet's file.
    let data: DeviceData
    /// The device's own jobs, or its group's when the group's devices share links (and one task runs them all).
    let jobs: DeviceJobs

    /// - Parameter tlsContext: a context made once by ``makeTLSContext(_:)`` for many hosts in one process (each
    ///   context holds its certificates and an OpenSSL context, tens of kilobytes); `nil` makes one at ``run()``.
    public init(configuration: DeviceHostConfiguration, logger: Logger = Logger(label: "apnsim.device"),
                tlsContext: NIOSSLContext? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.sharedTLSContext = tlsContext
        var center = NotificationList()
        center.backgroundBudget = configuration.backgroundBudget
        center.displayedLimit = configuration.notificationLimit
        center.activityBudget = configuration.activityBudget
        center.foreground = configuration.foreground
        let settings = DeviceState.Settings(device: configuration.device, alertsOff: configuration.alertsOff,
                                            extensionCategoriesApply: configuration.extensionCategoriesApply)
        self.data = configuration.group?.data ?? DeviceData(folder: configuration.dataDirectory)
        let state = DeviceState(settings: settings, apps: configuration.apps, center: center,
                                saved: data.load(configuration.device.id), linkDrops: configuration.dropLinkBeforeAcknowledging)
        self.held = Mutex(Held(state: state))
        self.jobs = configuration.group?.sharedJobs ?? DeviceJobs()
        configuration.group?.add(self)
    }

    /// Each app's token, by bundle ID, once the gateway has issued it.
    public var tokens: [String: DeviceToken] { held.withLock { $0.state.tokens } }

    /// Apps iOS would not install, by bundle ID, with the reason Xcode or iOS gives.
    public var refusals: [String: InstallCheck.Refusal] { held.withLock { $0.state.refusals } }

    /// Each app's push-to-start token per `ActivityAttributes` type, by bundle ID, once the gateway has issued them.
    public var pushToStartTokens: [String: [String: DeviceToken]] { held.withLock { $0.state.center.pushToStartTokensByApp } }

    /// One of the device's Live Activities as it is now, by ID.
    public func state(ofActivity id: String) -> LiveActivity? { held.withLock { $0.state.center.liveActivities[id] } }

    /// What the device shows, newest first.
    public var displayed: [NotificationList.Displayed] { held.withLock { $0.state.center.displayed } }

    // MARK: - Waiting for registration

    /// Returns once every app that installs has its token, or when the task is cancelled.
    public func waitUntilRegistered() async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Checked under the lock that `onCancel` takes, so a cancellation cannot slip in between.
                addWaiter(id, unlessCancelled: true) { continuation.resume() }
            }
        } onCancel: {
            held.withLock { $0.waiters.removeValue(forKey: id) }?()
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
        let now = held.withLock { held -> Bool in
            if held.state.isRegistered || (unlessCancelled && Task.isCancelled) { return true }
            held.waiters[id] = body
            return false
        }
        if now { body() }
    }

    // MARK: - Carrying out the state's actions

    /// Runs `event` on the state under the lock and carries out what it asks, except its messages, which it returns for
    /// the caller to write (on the link the event came on, in one write with the other answers to the same read).
    /// With `linking`, the link is up from this event on: answers finished after it go on that link.
    func apply(linking: DeviceRoute? = nil,
               _ event: (inout DeviceState) throws(DeviceError) -> DeviceState.Actions) throws(DeviceError) -> Outgoing {
        let (actions, waiters, saved) = try held.withLock { held throws(DeviceError) in
            if let linking { held.link = linking }
            let actions = try event(&held.state)
            return (actions, actions.registered ? held.takeWaiters() : [], actions.save ? held.state.saved : nil)
        }
        if let saved { data.save(configuration.device.id, saved) }
        for waiter in waiters { waiter() }
        return perform(actions)
    }

    /// Runs `event` (one that does not come from the link: a job's end) and writes its messages on the link, or keeps
    /// them for the next one when the link is down or the write fails.
    func applyAndSend(_ event: (inout DeviceState) -> DeviceState.Actions) {
        let (actions, waiters, link, saved) = held.withLock { held in
            let actions = event(&held.state)
            return (actions, actions.registered ? held.takeWaiters() : [], held.link, actions.save ? held.state.saved : nil)
        }
        if let saved { data.save(configuration.device.id, saved) }
        for waiter in waiters { waiter() }
        send(perform(actions), on: link)
    }

    /// Starts the jobs `actions` asks for, logs its refusals, and returns its messages, the attachments' copies first.
    private func perform(_ actions: DeviceState.Actions) -> Outgoing {
        for job in actions.jobs { start(job) }
        if actions.restart { jobs.add { await self.shutDownExtensions() } }
        if let wake = actions.summaryWake {
            // Real time: the summary comes when the device's clock reaches its time (a scenario's `advance` does not
            // bring it; `POST /v1/devices/{id}/summary/deliver` does).
            let clock = configuration.clock
            jobs.add {
                let wait = wake.at.timeIntervalSince(clock.now())
                if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64(wait * 1000))) }
                guard !Task.isCancelled else { return }
                self.applyAndSend { $0.summaryDue(wake.at, generation: wake.generation, now: clock.now()) }
            }
        }
        for case .installRefused(let refused) in actions.send {
            logger.warning("app not installed", metadata: ["bundle": "\(refused.bundleID)", "reason": "\(refused.message)"])
        }
        return Outgoing(messages: actions.attachments.flatMap(Self.copyMessages) + actions.send, written: actions.written)
    }

    private func start(_ job: DeviceState.Job) {
        let extensions = extensions
        switch job {
        case .build(let app):
            let delegates = app.responses?.delegate.map { _ in self.delegates }
            jobs.add {
                var failure: String?
                if let manifest = app.serviceExtension, let error = await extensions.prepare(manifest) {
                    failure = "The notification service extension \(manifest.bundleID) cannot be built: \(error)"
                } else if let delegate = app.responses?.delegate, let error = await delegates?.prepare(delegate) {
                    failure = "The app's notification delegate cannot be built: \(error)"
                }
                self.applyAndSend { [failure] in $0.built(app, failure: failure) }
            }
        case .run(let app, let payload, let delivery):
            let (categories, presents) = held.withLock { ($0.state.categories[app.bundleID], $0.state.presentsThroughDelegate(app)) }
            let delegates = presents ? self.delegates : nil
            jobs.add {
                var (content, run): (NotificationContent, ExtensionRun?) = (payload.content, nil)
                if let manifest = app.serviceExtension {
                    (content, run) = await extensions.run(manifest, app: app, content: payload.content, deliveryID: delivery.id, categories: categories)
                }
                let presented = await delegates?.present(.init(identifier: delivery.collapseID ?? delivery.apnsID, date: self.configuration.clock.now(),
                                                               content: content), id: delivery.id, app: app)
                let now = self.configuration.clock.now()
                self.applyAndSend { [content, run] in
                    $0.extensionFinished(app, delivery: delivery, payload: payload, content: content, run: run, presented: presented, now: now)
                }
            }
        case .respond(let record, let shown, let app):
            let delegates = app.responses?.delegate.map { _ in self.delegates }
            jobs.add {
                var record = record
                record.delegate = await delegates?.respond(record, to: .init(identifier: shown.identifier, date: record.at, content: shown.content),
                                                           app: app)
                if let url = app.responses?.forward {
                    record.forwarded = await ResponseForwarder.forward(record, userInfo: shown.content.userInfo, to: url)
                }
                self.applyAndSend { [record] in $0.responded(record) }
            }
        }
    }

    /// The apps' delegates' runtime, made now if it was not.
    private var delegates: AppDelegateRuntime {
        delegateRuntime.withLock { runtime in
            if let runtime { return runtime }
            let made = AppDelegateRuntime(bound: configuration.extensionBudget, logger: logger)
            runtime = made
            return made
        }
    }

    /// The app extensions' runtime, made now if it was not.
    private var extensions: ServiceExtensionRuntime {
        extensionRuntime.withLock { runtime in
            if let runtime { return runtime }
            let folder = configuration.dataDirectory.map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-\(configuration.device.id)")
            let made = ServiceExtensionRuntime(directory: folder.appendingPathComponent("attachments"), budget: configuration.extensionBudget,
                                               expiryGrace: configuration.extensionGrace, logger: logger)
            runtime = made
            return made
        }
    }

    /// Ends the device's extension processes (the device stopped), if it ever started any.
    func shutDownExtensions() async {
        await delegateRuntime.withLock({ $0 })?.shutdown()
        guard let runtime = extensionRuntime.withLock({ $0 }) else { return }
        await runtime.shutdown()
    }

    /// The bytes of an attachment the device shows, as the device link carries them to the gateway; none when the
    /// file is gone (the inbox then shows the source URL's). The gateway checks them against the SHA-256.
    private static func copyMessages(of attachment: NotificationContent.Attachment) -> [DeviceLinkMessage.Written] {
        guard let file = attachment.file, let data = FileManager.default.contents(atPath: file) else { return [] }
        return DeviceLinkMessage.AttachmentCopy.messages(for: [UInt8](data), sha256: attachment.sha256, uti: attachment.type)
    }

    /// Sends `messages` on `link`, or keeps them for the next link when it is down or the write fails.
    func send(_ messages: [DeviceLinkMessage.Written], on link: DeviceRoute?) {
        send(Outgoing(messages: messages), on: link)
    }

    /// Sends `outgoing` on `link`, or keeps its messages for the next link when it is down or the write fails.
    func send(_ outgoing: Outgoing, on link: DeviceRoute?) {
        guard !outgoing.isEmpty else { return }
        let messages = outgoing.messages
        guard let link else {
            held.withLock { $0.state.unsent(messages) }
            return
        }
        // A closed link is the outbox's to find: it hands the messages back.
        link.outbox.write(link.frames(outgoing)) {
            self.held.withLock { $0.state.unsent(messages) }
        }
    }

    /// The device's session ended (its link closed, or on a shared link the gateway or the device ended it): what
    /// finishes from now on waits for the next one.
    func unlink(_ route: DeviceRoute) {
        held.withLock { held in
            guard held.link == route else { return }
            held.link = nil
            held.state.unlinked()
        }
    }
}

extension DeviceHost.Held {
    /// The waiters to resume, now that every app has a token or a refusal.
    mutating func takeWaiters() -> [@Sendable () -> Void] {
        defer { waiters.removeAll() }
        return Array(waiters.values)
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
