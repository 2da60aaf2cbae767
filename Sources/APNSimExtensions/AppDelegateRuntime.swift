import APNSimRules
import Foundation
import Logging

/// The apps' own `UNUserNotificationCenterDelegate`s on one device (docs/interactions.md, "The app's own delegate"):
/// each source built once, as kind `swift` extensions are, and each app's delegate run in one process of its own,
/// started at its first request and kept, as iOS keeps an app running once it has launched it. The process gets one
/// request at a time.
///
/// Apple, "UNUserNotificationCenterDelegate",
/// https://developer.apple.com/documentation/usernotifications/unusernotificationcenterdelegate
public actor AppDelegateRuntime {
    let builder: SwiftExtensionBuilder
    /// How long a request may take before the device stops waiting: the response is recorded with its completion
    /// handler not called. Apple documents no limit for an app handling a response; apnsim gives it the service
    /// extension's budget (30 s by default).
    let bound: Duration
    let logger: Logger
    private var builds: [World.App.Delegate: Task<Result<SwiftExtensionBuilder.Product, ExtensionError>, Never>] = [:]
    private var processes: [String: AppProcess] = [:]
    private var turns: [String: TurnLock] = [:]

    public init(builder: SwiftExtensionBuilder = SwiftExtensionBuilder(), bound: Duration = .seconds(30),
                logger: Logger = Logger(label: "apnsim.app")) {
        self.builder = builder
        self.bound = bound
        self.logger = logger
    }

    /// Builds the delegate (once per source and class); the compiler's messages when it does not build.
    public func prepare(_ delegate: World.App.Delegate) async -> ExtensionError? {
        if case .failure(let error) = await build(delegate) { return error }
        return nil
    }

    private func build(_ delegate: World.App.Delegate) async -> Result<SwiftExtensionBuilder.Product, ExtensionError> {
        if let building = builds[delegate] { return await building.value }
        let builder = self.builder
        let task = Task { () -> Result<SwiftExtensionBuilder.Product, ExtensionError> in
            do throws(ExtensionError) {
                return .success(try await builder.build(delegate.source, principalClass: delegate.class, role: .appDelegate))
            } catch {
                return .failure(error)
            }
        }
        builds[delegate] = task
        let result = await task.value
        if case .failure = result { builds[delegate] = nil }  // a fixed file builds on the next try
        return result
    }

    /// Ends every app process; a stopping device calls it.
    public func shutdown() {
        for process in processes.values { process.terminate() }
        processes.removeAll()
    }

    /// A notification as the app's delegate is handed it.
    public struct Notification: Sendable {
        /// Its request identifier: the push's `apns-collapse-id`, or its `apns-id`.
        public var identifier: String
        public var date: Date
        public var content: NotificationContent

        public init(identifier: String, date: Date, content: NotificationContent) {
            self.identifier = identifier
            self.date = date
            self.content = content
        }
    }

    private struct Request: Encodable {
        var type: String
        var id: String
        var notification: Wire
        var action: String?
        var text: String?

        struct Wire: Encodable {
            var identifier: String
            var date: Double
            var content: ExtensionProtocol.Content
        }

        init(type: String, id: String, notification: Notification, action: String? = nil, text: String? = nil) {
            self.type = type
            self.id = id
            self.notification = Wire(identifier: notification.identifier, date: notification.date.timeIntervalSince1970,
                                     content: ExtensionProtocol.Content(notification.content))
            self.action = action
            self.text = text
        }
    }

    /// Hands the response `record` describes to `app`'s delegate (`didReceive`) and says what it did.
    public func respond(_ record: InteractionRecord, to notification: Notification, app: AppManifest) async -> DelegateRun? {
        guard let delegate = app.responses?.delegate else { return nil }
        let request = Request(type: "response", id: record.id, notification: notification, action: record.action, text: record.text)
        return await run(request, delegate: delegate, app: app.bundleID)
    }

    /// Asks `app`'s delegate how to present `notification`, which arrived while the app is in the foreground
    /// (`willPresent`); its options are the run's ``DelegateRun/presentation`` (none when it did not answer).
    public func present(_ notification: Notification, id: String, app: AppManifest) async -> DelegateRun? {
        guard let delegate = app.responses?.delegate else { return nil }
        return await run(Request(type: "present", id: id, notification: notification), delegate: delegate, app: app.bundleID)
    }

    private func run(_ request: Request, delegate: World.App.Delegate, app bundleID: String) async -> DelegateRun {
        let started = ContinuousClock.now
        let presenting = request.type == "present"
        func failed(_ name: String, _ why: String) -> DelegateRun {
            DelegateRun(class: name, completed: false, presentation: presenting ? [] : nil,
                        durationMs: (ContinuousClock.now - started).milliseconds, diagnostic: why)
        }
        let product: SwiftExtensionBuilder.Product
        switch await build(delegate) {
        case .success(let built): product = built
        case .failure(let error): return failed(delegate.class ?? "", "the app's delegate cannot be built: \(error)")
        }
        let turn = turns[bundleID] ?? TurnLock()
        turns[bundleID] = turn
        await turn.acquire()
        defer { Task { await turn.release() } }
        let process: AppProcess
        if let running = processes[bundleID], running.isRunning {
            process = running
        } else {
            do throws(ExtensionError) {
                process = try await AppProcess(executable: product.executable.path, logger: logger)
                processes[bundleID] = process
            } catch {
                return failed(product.principalClass, error.description)
            }
        }
        let outcome = await process.exchange(request, id: request.id, bound: bound)
        let name = product.principalClass
        var run = DelegateRun(class: name, completed: false, opened: outcome.opened, log: outcome.log,
                              presentation: presenting ? [] : nil, durationMs: (ContinuousClock.now - started).milliseconds, diagnostic: "")
        let method = presenting ? "userNotificationCenter(_:willPresent:withCompletionHandler:)"
                                : "userNotificationCenter(_:didReceive:withCompletionHandler:)"
        switch outcome.ending {
        case .completed:
            run.completed = true
            run.diagnostic = "\(name) handled the response and called its completion handler"
        case .presentation(let options):
            run.completed = true
            run.presentation = options
            run.diagnostic = "\(name)'s willPresent handed back " + (options.isEmpty ? "no options" : options.joined(separator: ", "))
        case .abandoned:
            run.diagnostic = "\(name) released the completion handler of \(method) without calling it (iOS logs this)"
        case .noDelegate:
            run.diagnostic = "the app set no UNUserNotificationCenter delegate, so iOS "
                + (presenting ? "presents nothing while the app is in the foreground" : "hands the response to nobody")
        case .timedOut:
            run.diagnostic = "\(name) did not call the completion handler of \(method) within \(bound)"
        case .exited(let why):
            processes[bundleID] = nil
            run.diagnostic = "the app's process \(why) while \(name) handled the \(presenting ? "notification" : "response")"
        }
        return run
    }
}

/// One request at a time: the turn of an app's process.
actor TurnLock {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if busy {
            await withCheckedContinuation { waiting.append($0) }  // `release` hands the turn over with `busy` still set
        } else {
            busy = true
        }
    }

    func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
