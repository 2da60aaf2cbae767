#if canImport(Glibc)
@preconcurrency import Glibc  // stdout, a C global, is set to line buffering once, before any other thread prints
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Runs a service extension as an apnsim extension process: the device's requests come in on standard input and
/// what the extension hands to its content handler goes out on standard output, one JSON object per line
/// (docs/extension-protocol.md). `apnsim extension build` writes the `main.swift` that calls it:
///
/// ```swift
/// import UserNotifications
/// ServiceExtensionHost.run { NotificationService() }
/// ```
///
/// Each push gets a new extension object, made by `makeExtension`; the process, and whatever the extension keeps in
/// statics, lives on between pushes (apnsim's reading of iOS, which reuses the process and does not document
/// reusing the object).
///
/// Threads, as in an extension process on iOS: the main thread runs the main run loop, so work sent to
/// `DispatchQueue.main`, `@MainActor` code and `RunLoop.main` timers run; `didReceive(_:withContentHandler:)` is
/// called on it (Apple does not document the thread; developers on Apple's forums see a loop in `didReceive` block
/// the extension's main thread, https://developer.apple.com/forums/thread/807554).
/// `serviceExtensionTimeWillExpire()` is called "on a separate thread" (Apple, "serviceExtensionTimeWillExpire()",
/// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension/serviceextensiontimewillexpire()),
/// so it runs even while the main thread is busy. The device's requests are read on a thread of their own. The
/// content handler may be called from any thread, and every call is passed on: the device keeps the first and
/// records the others as violations.
///
/// What the extension prints (and what apnsim's `os` stand-in logs) goes to the device as the protocol's `log`
/// messages, each line before any content handed over after it, so the delivery record keeps it with the push.
public enum ServiceExtensionHost {
    public static func run(_ makeExtension: @escaping () -> UNNotificationServiceExtension) -> Never {
        let output = ProtocolOutput()
        runningLock.withLock { running = output }
        let host = Host(makeExtension: makeExtension, output: output)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                host.handle(line)
            }
            exit(0)  // the device closed standard input: it is stopping
        }
        reader.name = "apnsim.service-extension.requests"
        reader.start()
        // The main run loop, serviced for good: it runs the main queue, and with it the main actor.
        while true { RunLoop.main.run(mode: .default, before: .distantFuture) }
    }

    /// The protocol's channel of the running extension process; `nil` where the mirror runs outside one (tests).
    nonisolated(unsafe) private static var running: ProtocolOutput?  // touched only under `runningLock`
    private static let runningLock = NSLock()

    /// Tells the device that `UNNotificationAttachment(identifier:url:options:)` refused a file, so the delivery
    /// record lists it beside the extension's outcome (as iOS, in the device's log) even though the extension
    /// caught the error and handed over no attachment.
    static func reportRefusal(identifier: String, file: URL, typeHint: String?, code: Int, message: String) {
        var report: [String: Any] = ["type": "refused", "identifier": identifier, "file": file.path, "code": code, "message": message]
        report["typeHint"] = typeHint
        runningLock.withLock { running }?.write(report)
    }

    /// Tells the device the app's categories as the extension set them.
    static func reportCategories(_ categories: [[String: Any]]) {
        runningLock.withLock { running }?.write(["type": "categories", "categories": categories])
    }

    /// The extension objects of the pushes being handled.
    final class Host: @unchecked Sendable {  // `extensions` is touched only under `lock`
        private let makeExtension: () -> UNNotificationServiceExtension
        private let lock = NSLock()
        private var extensions: [String: UNNotificationServiceExtension] = [:]
        private let output: ProtocolOutput

        init(makeExtension: @escaping () -> UNNotificationServiceExtension, output: ProtocolOutput) {
            self.makeExtension = makeExtension
            self.output = output
        }

        func handle(_ line: String) {
            guard let message = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                  let type = message["type"] as? String, let id = message["id"] as? String else {
                log("apnsim sent a line this extension host does not understand: \(line.prefix(80))")
                return
            }
            switch type {
            case "request":
                let content = WireContent.content(from: message["content"] as? [String: Any] ?? [:])
                let folder = (message["attachmentsDirectory"] as? String).map { URL(fileURLWithPath: $0, isDirectory: true) }
                let request = UNNotificationRequest.pushed(identifier: id, content: content)
                if let categories = message["categories"] as? [[String: Any]] {
                    UNUserNotificationCenter.current().replaceCategories(WireCategories.categories(from: categories))
                }
                DispatchQueue.main.async {
                    let service = self.makeExtension()
                    self.lock.withLock { self.extensions[id] = service }
                    service.didReceive(request) { [weak self] shown in self?.handOver(shown, id: id, folder: folder) }
                }
            case "expire":
                // The extension object is the team's and not Sendable; iOS, too, calls it from a second thread here.
                guard let found = lock.withLock({ extensions[id] }) else { return }
                nonisolated(unsafe) let service = found
                DispatchQueue.global().async { service.serviceExtensionTimeWillExpire() }
            default:
                log("apnsim sent a message of type \(type), which this extension host does not know")
            }
        }

        /// The content handler: moves each attachment's file into the push's folder, as iOS moves it into its data
        /// store, and tells the device.
        private func handOver(_ content: UNNotificationContent, id: String, folder: URL?) {
            let attachments = content.attachments.enumerated().map { index, attachment -> [String: Any] in
                var file = attachment.url
                if let folder {
                    let destination = folder.appendingPathComponent("\(index)-\(attachment.url.lastPathComponent)")
                    if (try? FileManager.default.moveItem(at: attachment.url, to: destination)) != nil { file = destination }
                }
                return ["identifier": attachment.identifier, "file": file.path, "typeHint": attachment.type]
            }
            var wire = WireContent.json(from: content)
            wire["attachments"] = attachments
            #if !canImport(Darwin)
            AppGroups.synchronizeDefaults()
            #endif
            write(["type": "content", "id": id, "content": wire])
            lock.withLock { extensions[id] = nil }
        }

        private func log(_ message: String) { write(["type": "log", "message": message]) }

        private func write(_ message: [String: Any]) { output.write(message) }
    }
}

/// The protocol's channel to the device, the process's original standard output, and what the extension prints:
/// standard output becomes a pipe whose lines go to the device as `log` messages. Before each message of its own the
/// host forwards what is in the pipe, so a line printed before the content handler was called arrives before the
/// content. Standard error stays the process's (a crash's last words go to the device's log).
final class ProtocolOutput: @unchecked Sendable {  // `partial` is touched only under `lock`
    private let lock = NSLock()
    private let channel: Int32
    private let printed: Int32
    private var partial: [UInt8] = []

    init() {
        channel = dup(1)
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            printed = -1  // no pipe: prints go where they went, and the protocol still works
            return
        }
        dup2(ends[1], 1)
        close(ends[1])
        printed = ends[0]
        _ = fcntl(printed, F_SETFL, fcntl(printed, F_GETFL) | O_NONBLOCK)
        setvbuf(stdout, nil, _IOLBF, 0)  // each printed line reaches the pipe when it ends, not when a buffer fills
        let forwarder = Thread { [self] in
            var waiting = pollfd(fd: printed, events: Int16(POLLIN), revents: 0)
            while poll(&waiting, 1, -1) >= 0 {
                if waiting.revents & Int16(POLLHUP) != 0 && waiting.revents & Int16(POLLIN) == 0 { return }
                lock.withLock { forwardPrinted() }
            }
        }
        forwarder.name = "apnsim.service-extension.log"
        forwarder.start()
    }

    func write(_ message: [String: Any]) {
        lock.withLock {
            fflush(stdout)
            forwardPrinted()
            send(message)
        }
    }

    /// Sends each whole line waiting in the pipe as a `log` message. Called under `lock`.
    private func forwardPrinted() {
        guard printed >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(printed, &buffer, buffer.count)
            guard count > 0 else { break }
            partial += buffer[..<count]
        }
        while let newline = partial.firstIndex(of: 0x0A) {
            send(["type": "log", "message": String(decoding: partial[..<newline], as: UTF8.self)])
            partial.removeSubrange(...newline)
        }
    }

    /// Writes one protocol message on the channel. Called under `lock`.
    private func send(_ message: [String: Any]) {
        guard var line = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(channel, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
