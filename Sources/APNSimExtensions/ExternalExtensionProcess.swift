import APNSimRules
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization

/// A team's own extension executable, running as the app's extension process: requests go to its standard input
/// and its replies come back on its standard output, one JSON object per line (docs/extension-protocol.md). Its `log`
/// messages, and each line of its standard error, go to the device's log and to the record of the push it is
/// handling (a line of standard error may come after the push's content: the two are different pipes). It ends when
/// the device closes its standard input, or is terminated.
final class ExternalExtensionProcess: Sendable {
    /// Set once it has started.
    private let child = Mutex<ChildProcess?>(nil)
    private let state = Mutex(State())
    private let logger: Logger

    private struct State {
        var buffer: [UInt8] = []
        var errors: [UInt8] = []
        var turn: Turn?
        var exit: String?
    }

    /// The push being handled: where its replies go.
    struct Turn {
        var id: String
        var handler: ContentHandler
        var original: NotificationContent
        /// Told of the first content handed over, or of the process ending.
        var progress: AsyncStream<Void>.Continuation
    }

    /// Starts `command`; throws a sentence when it cannot be started.
    init(command: [String], environment: [String: String] = [:], logger: Logger) async throws(ExtensionError) {
        self.logger = logger
        let child: ChildProcess
        do {
            // A crash ends the process at once, as on iOS: Swift's backtracer would hold a crashed Swift extension
            // for seconds, past its budget, before it exits.
            child = try await ChildProcess.start(command, environment: environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }) { [weak self] stream, bytes in
                switch stream {
                case .standardOutput: self?.received(bytes)
                case .standardError: self?.receivedError(bytes)
                }
            }
        } catch {
            throw ExtensionError("cannot start the extension \(command.joined(separator: " ")): \(error)")
        }
        self.child.withLock { $0 = child }
        Task { [weak self] in
            let status = await child.waitForExit()
            self?.ended("\(status)")
        }
    }

    var isRunning: Bool { state.withLock { $0.exit == nil } }
    var pid: Int32 { child.withLock { $0 }?.pid ?? 0 }

    /// Makes `turn` the push its replies go to; the returned stream says when something happened.
    func begin(id: String, handler: ContentHandler, original: NotificationContent) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        let exit = state.withLock { state in
            state.turn = Turn(id: id, handler: handler, original: original, progress: continuation)
            return state.exit
        }
        if let exit { handler.send(.crashed("the extension process \(exit)")); continuation.finish() }
        return stream
    }

    /// Writes one protocol message; a process that no longer reads is a crash.
    func send(_ message: some Encodable) throws(ExtensionError) {
        guard var line = try? JSONEncoder().encode(message) else { throw ExtensionError("cannot encode \(message)") }
        line.append(0x0A)
        if let exit = state.withLock({ $0.exit }) { throw ExtensionError("cannot write to the extension process: it \(exit)") }
        guard child.withLock({ $0 })?.write(Array(line)) == true else { throw ExtensionError("cannot write to the extension process: its standard input is closed") }
    }

    func terminate() {
        guard let process = child.withLock({ $0 }) else { return }
        process.closeInput()
        process.signal(SIGTERM)
    }

    private func received(_ bytes: [UInt8]) {
        let lines = state.withLock { $0.buffer.takeLines(adding: bytes) }
        for line in lines where !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { handle(line) }
    }

    /// Standard error, line by line: the device's log, and the record of the push being handled.
    private func receivedError(_ bytes: [UInt8]) {
        let (lines, turn) = state.withLock { state in (state.errors.takeLines(adding: bytes), state.turn) }
        for line in lines.map({ String(decoding: $0, as: UTF8.self) }) {
            logger.info("extension stderr", metadata: ["text": "\(line)"])
            turn?.handler.log(line)
        }
    }

    private func handle(_ line: [UInt8]) {
        let turn = state.withLock { $0.turn }
        guard let reply = try? JSONDecoder().decode(ExtensionProtocol.Reply.self, from: Data(line)),
              ["content", "log", "refused", "categories"].contains(reply.type) else {
            let text = String(decoding: line.prefix(80), as: UTF8.self)
            turn?.handler.send(.crashed("the extension wrote \"\(text)\", which is not a protocol message (docs/extension-protocol.md), and was stopped"))
            terminate()
            return
        }
        if reply.type == "log" {
            logger.info("extension log", metadata: ["message": "\(reply.message ?? "")"])
            turn?.handler.log(reply.message ?? "")
            return
        }
        if reply.type == "categories" {
            turn?.handler.registered(reply.categories ?? [])
            return
        }
        if reply.type == "refused" {
            if let refused = Self.refused(reply) { turn?.handler.refused(refused) }
            return
        }
        guard let turn, reply.id == turn.id, let content = reply.content else {
            turn?.handler.violation("handed over content for \(reply.id ?? "no push") while handling \(turn?.id ?? "none")")
            return
        }
        turn.handler(Self.result(content, turn: turn))
        turn.progress.yield()
    }

    /// What the extension handed over, with each file it attached checked as iOS checks it.
    static func result(_ content: ExtensionProtocol.Content, turn: Turn) -> ExtensionResult {
        var shown = content.notificationContent(original: turn.original)
        shown.attachments = (content.attachments ?? []).enumerated().map { index, file in
            attachment(file, identifier: file.identifier ?? "\(turn.id)-\(index)")
        }
        let refused = shown.attachments.compactMap(\.refusal).map(\.description)
        let diagnostic = refused.isEmpty ? "the extension handed over its content with \(shown.attachments.count) attachment(s)"
            : "the extension handed over its content; iOS refused \(refused.joined(separator: "; "))"
        return ExtensionResult(content: shown, diagnostic: diagnostic)
    }

    /// A file `UNNotificationAttachment` refused in the extension, described as the device reads it now, with the
    /// refusal the extension saw; `nil` when the report lacks the file or the code.
    static func refused(_ reply: ExtensionProtocol.Reply) -> NotificationContent.Attachment? {
        guard let file = reply.file, let code = reply.code.flatMap(AttachmentRules.Code.init(rawValue:)) else { return nil }
        var described = attachment(.init(identifier: reply.identifier, file: file, typeHint: reply.typeHint), identifier: reply.identifier ?? "")
        described.refusal = AttachmentRules.Refusal(code: code, message: reply.message ?? "")
        described.file = nil  // not shown, so never copied to the gateway
        return described
    }

    static func attachment(_ file: ExtensionProtocol.FileAttachment, identifier: String) -> NotificationContent.Attachment {
        let url = URL(fileURLWithPath: file.file)
        let checked = AttachmentRules.check(file: url, contents: FileManager.default.contents(atPath: url.path), typeHint: file.typeHint)
        return .init(identifier: identifier, type: checked.type?.uti, size: checked.bytes?.count ?? 0,
                     sha256: checked.bytes.map(NotificationContent.Attachment.sha256(of:)) ?? "", url: url.absoluteString,
                     refusal: checked.refusal, file: url.path)
    }

    private func ended(_ why: String) {
        let turn = state.withLock { state -> Turn? in
            state.exit = why
            return state.turn
        }
        turn?.handler.send(.crashed("the extension process \(why)"))
        turn?.progress.finish()
    }

    /// The memory the process holds, where the system says (Linux's /proc); `nil` elsewhere. It is the anonymous
    /// part of its resident set (`RssAnon`: heap, stacks, what it allocated), the closest Linux has to the footprint
    /// iOS holds an extension to: the pages of shared libraries (Foundation, libcurl: some 30 MiB for a Swift
    /// extension) are not counted, as iOS does not count the shared cache.
    var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
