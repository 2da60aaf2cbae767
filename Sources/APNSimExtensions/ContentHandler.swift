import APNSimRules
import APNSimRuntime
import Synchronization

/// The content handler iOS passes `didReceive`, and everything else that can end an extension's turn, as one queue
/// of events the runtime reads in order (``next()``). The first call of the handler counts; later calls are recorded as
/// violations (Apple does not say what a second call does; apnsim shows the first, as vendor SDKs guard for).
///
final class ContentHandler: Sendable {
    enum Event: Sendable {
        /// The content handler was called (the first time).
        case handed(ExtensionResult)
        /// `didReceive` returned or threw; what it handed over, if anything, came before.
        case returned
        case crashed(String)
        case killed(String)
        /// The budget ran out.
        case deadline
        /// The grace period after `serviceExtensionTimeWillExpire` ran out.
        case graceOver
    }

    private let events = EventQueue<Event>()
    private let state: Mutex<State>
    private let memoryLimit: Int

    private struct State {
        var calls = 0
        var violations: [String] = []
        var log: [String] = []
        var logLinesLeftOut = 0
        var refused: [NotificationContent.Attachment] = []
        var registered: [NotificationCategory]?
        var downloads: [MediaDownload] = []
        var held = 0
        var killed = false
    }

    /// - Parameter memoryLimit: bytes the extension may hold before iOS kills it.
    init(memoryLimit: Int) {
        state = Mutex(State())
        self.memoryLimit = memoryLimit
    }

    /// The extension calls its content handler.
    func callAsFunction(_ result: ExtensionResult) {
        let first = state.withLock { state in
            state.calls += 1
            if state.calls > 1 {
                state.violations.append("called its content handler \(state.calls) times; iOS uses the first call")
            }
            return state.calls == 1
        }
        if first { send(.handed(result)) }
    }

    /// Queues `event` for the runtime; after ``finish()`` nothing is queued.
    func send(_ event: Event) { events.send(event) }

    /// The next event, in the order sent; `nil` once the turn is finished or its task cancelled.
    func next() async -> Event? { await events.next() }

    /// The extension holds `bytes` more (a built-in extension's own accounting).
    func hold(_ bytes: Int) {
        let held = state.withLock { state -> Int in
            state.held += bytes
            return state.held
        }
        check(held, what: "it held")
    }

    /// The extension holds `bytes` in all (an extension process's resident memory).
    func resident(_ bytes: Int) { check(bytes, what: "its process held") }

    /// Past the limit iOS kills the extension (jetsam), once.
    private func check(_ held: Int, what: String) {
        let over = state.withLock { state -> Bool in
            guard held > memoryLimit, !state.killed else { return false }
            state.killed = true
            return true
        }
        if over {
            send(.killed("\(what) \(held / 1_048_576) MiB, over its \(memoryLimit / 1_048_576) MiB memory limit, and iOS killed it"))
        }
    }

    /// Something the extension did that iOS does not allow, for the record.
    func violation(_ text: String) { state.withLock { $0.violations.append(text) } }

    var violations: [String] { state.withLock { $0.violations } }

    /// A line the extension logged while it handled this push; past ``ExtensionRun/logLimit`` lines only counted.
    func log(_ line: String) {
        state.withLock { state in
            if state.log.count < ExtensionRun.logLimit {
                state.log.append(line.count > ExtensionRun.logLineLimit ? String(line.prefix(ExtensionRun.logLineLimit)) + "…" : line)
            } else {
                state.logLinesLeftOut += 1
            }
        }
    }

    /// A file iOS refused when the extension made an attachment of it (`UNNotificationAttachment` threw); past
    /// ``ExtensionRun/logLimit`` only the first are kept.
    func refused(_ attachment: NotificationContent.Attachment) {
        state.withLock { state in
            if state.refused.count < ExtensionRun.logLimit { state.refused.append(attachment) }
        }
    }

    var refusedInExtension: [NotificationContent.Attachment] { state.withLock { $0.refused } }

    /// The extension set the app's categories (`setNotificationCategories(_:)`); the last call stands.
    func registered(_ categories: [NotificationCategory]) { state.withLock { $0.registered = categories } }

    var registeredCategories: [NotificationCategory]? { state.withLock { $0.registered } }

    /// The extension downloaded (or failed to download) a file for an attachment.
    func downloaded(_ download: MediaDownload) { state.withLock { $0.downloads.append(download) } }

    var downloads: [MediaDownload] { state.withLock { $0.downloads } }

    /// The lines logged, and a last one saying how many more were left out.
    var logLines: [String] {
        state.withLock { state in
            state.log + (state.logLinesLeftOut > 0 ? ["(\(state.logLinesLeftOut) more lines not kept)"] : [])
        }
    }

    /// Ends the turn's events: a waiting ``next()`` returns `nil`, and so does every one after it.
    func finish() { events.finish(dropping: true) }
}
