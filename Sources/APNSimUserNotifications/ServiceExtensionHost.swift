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
/// reusing the object). `didReceive` and `serviceExtensionTimeWillExpire` run on one serial queue; the content
/// handler may be called from any thread, and every call is passed on: the device keeps the first and records the
/// others as violations.
public enum ServiceExtensionHost {
    public static func run(_ makeExtension: @escaping () -> UNNotificationServiceExtension) -> Never {
        let host = Host(makeExtension: makeExtension)
        while let line = readLine(strippingNewline: true) {
            host.handle(line)
        }
        exit(0)  // the device closed standard input: it is stopping
    }

    /// The extension objects of the pushes being handled, on the queue iOS would call them on.
    final class Host: @unchecked Sendable {  // `extensions` is touched only on `queue`
        private let makeExtension: () -> UNNotificationServiceExtension
        private let queue = DispatchQueue(label: "apnsim.service-extension")
        private var extensions: [String: UNNotificationServiceExtension] = [:]
        private let output = NSLock()

        init(makeExtension: @escaping () -> UNNotificationServiceExtension) {
            self.makeExtension = makeExtension
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
                queue.async {
                    let service = self.makeExtension()
                    self.extensions[id] = service
                    service.didReceive(request) { [weak self] shown in self?.handOver(shown, id: id, folder: folder) }
                }
            case "expire":
                queue.async { self.extensions[id]?.serviceExtensionTimeWillExpire() }
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
            write(["type": "content", "id": id, "content": wire])
            queue.async { self.extensions[id] = nil }
        }

        private func log(_ message: String) { write(["type": "log", "message": message]) }

        private func write(_ message: [String: Any]) {
            guard var line = try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys]) else { return }
            line.append(0x0A)
            output.lock()
            defer { output.unlock() }
            FileHandle.standardOutput.write(line)
        }
    }
}
