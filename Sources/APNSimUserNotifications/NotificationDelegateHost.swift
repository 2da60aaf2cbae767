#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Runs a team's `UNUserNotificationCenterDelegate` as the app's process on an apnsim device: the device's requests
/// come in on standard input and what the delegate does goes out on standard output, one JSON object per line
/// (docs/interactions.md, "The app's own delegate"). apnsim writes the `main.swift` that calls it:
///
/// ```swift
/// import UserNotifications
/// NotificationDelegateHost.run { AppDelegate() }
/// ```
///
/// The object is made once, when the app starts. When it is a `UIApplicationDelegate` (apnsim's UIKit), `launch`
/// hands it to `application(_:didFinishLaunchingWithOptions:)`, where apps set the center's delegate; when the
/// center has none after that, the object itself becomes it.
///
/// Requests: `response` (`didReceive`: the notification, the action identifier, the typed text) and `present`
/// (`willPresent`). Answers: `completed` when the response's completion handler is called, `abandoned` when it is
/// released without being called (iOS logs that the completion handler was never called), `presentation` with the
/// options `willPresent` handed back, `opened` for each URL the app opens (`UIApplication.open`), and `log` for
/// each line it prints. Delegate methods are called on the main thread, as on iOS.
public enum NotificationDelegateHost {
    public static func run(_ makeDelegate: @escaping () -> AnyObject, launch: ((AnyObject) -> Void)? = nil) -> Never {
        let output = ProtocolOutput()
        lock.withLock { running = output }
        nonisolated(unsafe) let (makeDelegate, launch) = (makeDelegate, launch)  // called once, on the main thread
        DispatchQueue.main.async {
            let object = makeDelegate()
            launch?(object)
            let center = UNUserNotificationCenter.current()
            if center.delegate == nil, let delegate = object as? any UNUserNotificationCenterDelegate { center.delegate = delegate }
            lock.withLock { app = object }  // the app's object lives as long as the app, as its UIApplication keeps it
        }
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { handle(line) }
            exit(0)  // the device closed standard input: it is stopping
        }
        reader.name = "apnsim.app.requests"
        reader.start()
        while true { RunLoop.main.run(mode: .default, before: .distantFuture) }
    }

    /// Tells the device the app opened `url` (apnsim's `UIApplication.open`), for the response being handled.
    public static func reportOpened(_ url: URL) {
        let (output, id) = lock.withLock { (running, current) }
        output?.write(["type": "opened", "id": id ?? "", "url": url.absoluteString])
    }

    nonisolated(unsafe) private static var running: ProtocolOutput?  // these three are touched only under `lock`
    nonisolated(unsafe) private static var app: AnyObject?
    /// The request being handled: what the app opens is reported with it.
    nonisolated(unsafe) private static var current: String?
    private static let lock = NSLock()

    private static func write(_ message: [String: Any]) {
        lock.withLock { running }?.write(message)
    }

    static func handle(_ line: String) {
        guard let message = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let type = message["type"] as? String, let id = message["id"] as? String,
              let notification = (message["notification"] as? [String: Any]).map(Self.notification(from:)) else {
            write(["type": "log", "message": "apnsim sent a line this app host does not understand: \(line.prefix(80))"])
            return
        }
        let action = message["action"] as? String ?? UNNotificationDefaultActionIdentifier
        let text = message["text"] as? String
        nonisolated(unsafe) let unsafeNotification = notification
        DispatchQueue.main.async {
            lock.withLock { current = id }
            let center = UNUserNotificationCenter.current()
            guard let delegate = center.delegate else {
                // No delegate: iOS presents nothing in the foreground, and nobody answers the response.
                write(type == "present" ? ["type": "presentation", "id": id, "options": [String](), "noDelegate": true]
                                        : ["type": "completed", "id": id, "noDelegate": true])
                return
            }
            switch type {
            case "present":
                let once = Once()
                delegate.userNotificationCenter(center, willPresent: unsafeNotification) { options in
                    guard once.first() else { return }
                    write(["type": "presentation", "id": id, "options": options.names])
                }
            case "response":
                let response = text.map { UNTextInputNotificationResponse(notification: unsafeNotification, actionIdentifier: action, userText: $0) }
                    ?? UNNotificationResponse(notification: unsafeNotification, actionIdentifier: action)
                let completion = Completion(id: id)
                delegate.userNotificationCenter(center, didReceive: response) { completion.call() }
            default:
                write(["type": "log", "message": "apnsim sent a message of type \(type), which this app host does not know"])
            }
        }
    }

    /// The notification a request describes, as the center delivered it.
    static func notification(from json: [String: Any]) -> UNNotification {
        let content = WireContent.content(from: json["content"] as? [String: Any] ?? [:])
        let date = (json["date"] as? NSNumber).map { Date(timeIntervalSince1970: $0.doubleValue) } ?? Date()
        return UNNotification(request: .pushed(identifier: json["identifier"] as? String ?? "", content: content), date: date)
    }

    /// A response's completion handler: `completed` on its first call; `abandoned` when it is released uncalled.
    final class Completion: @unchecked Sendable {  // `called` is touched only under `lock`
        private let id: String
        private let lock = NSLock()
        private var called = false

        init(id: String) { self.id = id }

        func call() {
            guard lock.withLock({ () -> Bool in defer { called = true }; return !called }) else { return }
            NotificationDelegateHost.write(["type": "completed", "id": id])
        }

        deinit {
            if !called { NotificationDelegateHost.write(["type": "abandoned", "id": id]) }
        }
    }

    /// True the first time only.
    final class Once: @unchecked Sendable {  // `done` is touched only under `lock`
        private let lock = NSLock()
        private var done = false
        func first() -> Bool { lock.withLock { defer { done = true }; return !done } }
    }
}
