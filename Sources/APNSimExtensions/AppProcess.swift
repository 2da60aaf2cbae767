import APNSimRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// An app's own process on a device: the team's `UNUserNotificationCenterDelegate` run by `NotificationDelegateHost`.
/// Requests go to its standard input and its answers come back on its standard output, one JSON object per line
/// (docs/interactions.md, "The app's own delegate"); one request at a time, each waiting for its ending.
final class AppProcess: Sendable {
    private let child: ChildProcess
    private let state = Mutex(State())
    private let logger: Logger

    private struct State {
        var buffer: [UInt8] = []
        var errors: [UInt8] = []
        var turn: Turn?
        var exit: String?
    }

    /// The request being handled, and what it has done so far.
    private struct Turn {
        var id: String
        var opened: [String] = []
        var log: [String] = []
        var ended: CheckedContinuation<Ending, Never>?
    }

    /// How a request ended.
    enum Ending: Sendable, Equatable {
        case completed
        /// The completion handler was released without being called.
        case abandoned
        case presentation([String])
        /// The app set no delegate.
        case noDelegate
        case exited(String)
        case timedOut
    }

    /// What one request came to.
    struct Outcome: Sendable {
        var ending: Ending
        var opened: [String]
        var log: [String]
    }

    /// Starts the app's executable; throws a sentence when it cannot be started.
    init(executable: String, logger: Logger) async throws(ExtensionError) {
        self.logger = logger
        let box = Box()
        do {
            child = try await ChildProcess.start([executable], environment: ["SWIFT_BACKTRACE": "enable=no"]) { stream, bytes in
                box.process?.received(bytes, from: stream)
            }
        } catch {
            throw ExtensionError("cannot start the app's delegate \(executable): \(error)")
        }
        box.process = self
        let child = self.child
        Task { [weak self] in
            let status = await child.waitForExit()
            self?.ended("\(status)")
        }
    }

    /// Lets the output handler, set before `self` exists, reach it.
    private final class Box: @unchecked Sendable {  // set once, before the process prints
        weak var process: AppProcess?
    }

    var isRunning: Bool { state.withLock { $0.exit == nil } }

    func terminate() {
        child.closeInput()
        child.signal(SIGTERM)
    }

    /// Sends `request` (whose id is `id`) and waits for its ending, or for `bound`.
    func exchange(_ request: some Encodable, id: String, bound: Duration) async -> Outcome {
        guard var line = try? JSONEncoder().encode(request) else {
            return Outcome(ending: .exited("could not be sent the request"), opened: [], log: [])
        }
        line.append(0x0A)
        let ending = await withCheckedContinuation { (continuation: CheckedContinuation<Ending, Never>) in
            let exit = state.withLock { state -> String? in
                if state.exit == nil { state.turn = Turn(id: id, ended: continuation) }
                return state.exit
            }
            if let exit { return continuation.resume(returning: .exited(exit)) }
            if !child.write(Array(line)) { end(.exited("closed its standard input")) }
            Task { [weak self] in
                try? await Task.sleep(for: bound)
                self?.end(.timedOut, only: id)
            }
        }
        return state.withLock { state in
            defer { state.turn = nil }
            return Outcome(ending: ending, opened: state.turn?.opened ?? [], log: state.turn?.log ?? [])
        }
    }

    /// Ends the turn (the one with id `only`, when given) with `ending`, once.
    private func end(_ ending: Ending, only id: String? = nil) {
        let continuation = state.withLock { state -> CheckedContinuation<Ending, Never>? in
            guard id == nil || state.turn?.id == id else { return nil }
            defer { state.turn?.ended = nil }
            return state.turn?.ended
        }
        continuation?.resume(returning: ending)
    }

    private func received(_ bytes: [UInt8], from stream: ChildProcess.Stream) {
        let lines = state.withLock { state in
            stream == .standardOutput ? state.buffer.takeLines(adding: bytes) : state.errors.takeLines(adding: bytes)
        }
        for line in lines where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) {
            if stream == .standardError {
                note(String(decoding: line, as: UTF8.self))
            } else {
                handle(line)
            }
        }
    }

    /// A line for the log of the request being handled, and the device's log.
    private func note(_ text: String) {
        logger.info("app delegate", metadata: ["text": "\(text)"])
        state.withLock { $0.turn?.log.append(text) }
    }

    private struct Reply: Decodable {
        var type: String
        var id: String?
        var url: String?
        var options: [String]?
        var message: String?
        var noDelegate: Bool?
    }

    private func handle(_ line: [UInt8]) {
        guard let reply = try? JSONDecoder().decode(Reply.self, from: Data(line)) else {
            note(String(decoding: line, as: UTF8.self))
            return
        }
        let current = state.withLock { $0.turn?.id }
        switch reply.type {
        case "log":
            note(reply.message ?? "")
        case "opened":
            state.withLock { $0.turn?.opened.append(reply.url ?? "") }
        case "completed" where reply.id == current:
            end(reply.noDelegate == true ? .noDelegate : .completed)
        case "abandoned" where reply.id == current:
            end(.abandoned)
        case "presentation" where reply.id == current:
            end(reply.noDelegate == true ? .noDelegate : .presentation(reply.options ?? []))
        default:
            // The answer to a request given up on (its bound passed), or a second call of a completion handler.
            note("(\(reply.type) for \(reply.id ?? "no request"), which is no longer being handled)")
        }
    }


    private func ended(_ why: String) {
        state.withLock { $0.exit = why }
        end(.exited(why))
    }
}
