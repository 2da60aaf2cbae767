import APNSimRules
import Foundation
import Logging

/// Runs an app's notification service extension on a push, as iOS does: the extension gets the content and a time
/// budget (Apple: about 30 seconds); what it hands its content handler first is shown. At the deadline
/// `serviceExtensionTimeWillExpire` gets a short grace period to hand something over; after that, a crash, a
/// thrown error, memory over the limit or content without alert text, the original is shown. Each app's
/// extension runs in one process per device, reused from push to push, one request at a time.
///
/// Apple, "Modifying content in newly delivered notifications",
/// https://developer.apple.com/documentation/usernotifications/modifying-content-in-newly-delivered-notifications
public struct ServiceExtensionRuntime: Sendable {
    /// The device's budget per push; an app's extension may declare its own.
    public var budget: Duration
    /// How long `serviceExtensionTimeWillExpire` has before iOS gives up on it. Apple says only that the
    /// extension is terminated "shortly" after; apnsim gives 2 s by default.
    public var expiryGrace: Duration
    let downloader: AttachmentDownloader
    private let processes = ExtensionProcesses()
    private let swiftExtensions: SwiftExtensions
    let logger: Logger

    /// - Parameters:
    ///   - directory: where the extension saves its downloads (the device's data folder).
    ///   - builder: what builds kind `swift` extensions; their app-bundle folders go beside `directory`.
    public init(directory: URL, budget: Duration = .seconds(30), expiryGrace: Duration = .seconds(2),
                builder: SwiftExtensionBuilder = SwiftExtensionBuilder(), logger: Logger = Logger(label: "apnsim.extension")) {
        self.logger = logger
        self.budget = budget
        self.expiryGrace = expiryGrace
        self.downloader = AttachmentDownloader(directory: directory)
        self.swiftExtensions = SwiftExtensions(builder: builder,
                                               bundles: directory.deletingLastPathComponent().appendingPathComponent("extension-bundles"))
    }

    /// Readies `manifest`'s extension for pushes: builds a kind `swift` one, once per source (nothing to do for the
    /// other kinds). The compiler's messages, when it does not build, are the reason the app does not install.
    public func prepare(_ manifest: ServiceExtensionManifest) async -> ExtensionError? {
        guard manifest.kind == .swift, manifest.source != nil else { return nil }
        if case .failure(let error) = await swiftExtensions.build(manifest) { return error }
        return nil
    }

    /// Ends every extension process; a stopping device calls it.
    public func shutdown() async { await processes.terminateAll() }

    /// The content to show for a mutable-content push with a visible alert, and what the extension did.
    /// - Parameter resources: the app bundle's resources folder, when the app declares one.
    /// - Parameter app: the app the extension is embedded in: its bundle ID, resources folder and App Groups.
    /// - Parameter categories: the categories the app has registered, which the extension may read and replace
    ///   (the record's `registeredCategories`).
    public func run(_ manifest: ServiceExtensionManifest, app: AppManifest,
                    content original: NotificationContent, deliveryID: String,
                    categories: [NotificationCategory] = []) async -> (NotificationContent, ExtensionRun) {
        let (bundleID, resources) = (app.bundleID, app.resources)
        let process = await processes.process(for: bundleID)
        let launched = await process.acquire()
        let (kind, pickedBy) = manifest.kind == .auto ? AutoPick.pick(original.userInfo) : (manifest.kind, nil)
        let picked = manifest.kind != .auto ? "" : pickedBy.map { "auto picked \(kind.rawValue) by the payload's \($0) key; " }
            ?? "auto found no vendor's keys; "
        let budget = manifest.budget.map { Duration.milliseconds(Int64($0 * 1000)) } ?? self.budget
        let builtIn: any BuiltInExtension
        switch kind {
        case .executable, .swift:
            let swiftExtensions = self.swiftExtensions
            let environment = ExtensionEnvironment(app: app, extension: manifest, dataDirectory: downloader.directory.deletingLastPathComponent())
            let running = await process.executable(logger: logger) {
                let command = kind == .swift
                    ? await swiftExtensions.command(manifest, app: bundleID, resources: resources.map { URL(fileURLWithPath: $0) })
                    : .success(manifest.executable ?? [])
                return command.map { ($0, environment.variables) }
            }
            builtIn = ExternalExtension(process: running, directory: downloader.directory.appendingPathComponent(deliveryID), budget: budget,
                                        categories: categories)
        default:
            builtIn = kind.builtIn
        }
        // The budget starts once the extension process runs, as iOS's starts at didReceive: starting a process here
        // (and, for kind swift, linking its bundle folder) is the simulation's cost, not the extension's.
        let started = ContinuousClock.now
        let handler = ContentHandler(memoryLimit: manifest.memoryLimitMiB * 1_048_576)
        let context = ExtensionContext(downloader: downloader, deliveryID: deliveryID, deadline: started + budget,
                                       end: started + budget + expiryGrace, resources: resources.map { URL(fileURLWithPath: $0) }, handler: handler,
                                       categories: categories)
        let turn = await Self.turn(of: builtIn, on: original, context: context, grace: expiryGrace)
        // iOS ends the process after a crash, a kill, or an expiry the extension did not answer.
        let ended = turn.outcome == .crashed || turn.outcome == .killed || (turn.outcome == .expired && turn.result == nil)
        await process.release(alive: !ended)

        var run = ExtensionRun(ran: true, kind: kind, outcome: turn.outcome, diagnostic: "", durationMs: (ContinuousClock.now - started).milliseconds,
                               violations: handler.violations, pickedBy: pickedBy, launched: launched, log: handler.logLines)
        var shown: NotificationContent
        switch turn.outcome {
        case .completed, .expired:
            let (content, diagnostic, suppressed) = Self.shown(turn.result ?? .original(""), original: original, filtering: manifest.filtering)
            shown = content
            run.suppressed = suppressed
            run.diagnostic = switch (turn.outcome, turn.result) {
            case (.expired, nil):
                "the extension did not call its content handler within \(budget), nor in the \(expiryGrace) after serviceExtensionTimeWillExpire; the original content is shown"
            case (.expired, _): "the extension did not call its content handler within \(budget); at expiry \(diagnostic)"
            default: diagnostic
            }
        case .crashed, .killed, .notLaunched:
            shown = original
            run.diagnostic = "\(turn.why); the original content is shown"
        }
        run.diagnostic = picked + run.diagnostic
        run.registeredCategories = handler.registeredCategories
        let downloads = handler.downloads
        run.downloads = downloads.isEmpty ? nil : downloads
        // The content is what the device shows; what iOS refused is the extension's to answer for.
        // What iOS refused: files UNNotificationAttachment refused in the extension, then attachments handed over.
        let refusedInExtension = handler.refusedInExtension
        run.refusedAttachments = refusedInExtension + shown.attachments.filter { $0.refusal != nil }
        shown.attachments.removeAll { $0.refusal != nil }
        if !refusedInExtension.isEmpty {
            run.diagnostic += "; in the extension, UNNotificationAttachment refused "
                + refusedInExtension.map { "\($0.identifier.isEmpty ? "a file" : $0.identifier) (\($0.refusal.map { "\($0)" } ?? ""))" }.joined(separator: "; ")
        }
        return (shown, run)
    }

    private struct Turn {
        var outcome: ExtensionRun.Outcome
        var result: ExtensionResult?
        var why = ""
    }

    /// One request through the extension: the first event that settles it wins.
    private static func turn(of builtIn: any BuiltInExtension, on original: NotificationContent, context: ExtensionContext,
                             grace: Duration) async -> Turn {
        let handler = context.handler
        let work = Task {
            do {
                if let result = try await builtIn.didReceive(original, context: context) { handler(result) }
                handler.send(.returned)
            } catch {
                handler.send(.crashed("the extension crashed: \(error)"))
            }
        }
        // The budget's deadline joins the process's list on one event-loop timer (``ExtensionDeadlines``), rather than
        // a Swift task asleep until it (made, put to sleep and woken to be cancelled for every push: about 50 µs of the
        // device process's CPU a rich push, of 370) or a timer of its own (an event loop woken for every push).
        let deadline = ExtensionDeadlines.shared.add(at: context.deadline) { handler.send(.deadline) }
        var expiry: Task<Void, Never>?
        defer {
            work.cancel()
            ExtensionDeadlines.shared.remove(deadline)
            expiry?.cancel()
            handler.finish()
        }
        var settled: Turn?
        var expired = false
        while let event = await handler.next() {
            switch event {
            case .handed(let result):
                settled = Turn(outcome: expired ? .expired : .completed, result: result)
                // Calls made before didReceive returns are still counted (a second call is a violation).
                if expired { return settled! }
            case .returned:
                if let settled { return settled }
            case .crashed(let why):
                return settled ?? Turn(outcome: .crashed, why: why)
            case .killed(let why):
                return settled ?? Turn(outcome: .killed, why: why)
            case .deadline:
                if let settled { return settled }
                expired = true
                expiry = Task {
                    if let result = await builtIn.willExpire(original, context: context) { handler(result) }
                }
                Task {
                    try? await Task.sleep(for: grace)
                    handler.send(.graceOver)
                }
            case .graceOver:
                return Turn(outcome: .expired)
            }
        }
        return settled ?? Turn(outcome: .expired)
    }

    /// What iOS shows for what the extension handed over: that, unless it asked for the original or removed the
    /// alert text (Apple: the extension may change the text but not remove it; iOS then shows the original).
    /// Empty content from an extension with the filtering entitlement suppresses the push. The last value says so.
    static func shown(_ result: ExtensionResult, original: NotificationContent, filtering: Bool) -> (NotificationContent, String, Bool) {
        if result.showsOriginal { return (original, result.diagnostic, false) }
        if filtering, result.content.isEmpty {
            return (result.content, result.diagnostic + "; the content is empty and the extension has the filtering entitlement, so iOS shows nothing", true)
        }
        guard result.content.hasVisibleAlert else {
            let why = filtering ? "the extension removed the alert text" : "the extension removed the alert text (empty content suppresses a push only with the filtering entitlement)"
            return (original, result.diagnostic + "; \(why), so iOS shows the original content", false)
        }
        return (result.content, result.diagnostic, false)
    }
}

extension NotificationContent {
    /// `UNNotificationContent()`: nothing to show, what an extension with the filtering entitlement hands over to
    /// drop a push.
    var isEmpty: Bool {
        (title ?? "").isEmpty && (subtitle ?? "").isEmpty && (body ?? "").isEmpty && attachments.isEmpty
    }
}
