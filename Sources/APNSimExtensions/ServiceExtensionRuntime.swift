import APNSimCore
import Foundation

/// Runs an app's notification service extension on a push, as iOS does: the extension gets the content and a time
/// budget (Apple: about 30 seconds); what it hands back is shown, or the original when it hands back nothing in
/// time or removes the alert text.
///
/// Apple, "Modifying content in newly delivered notifications",
/// https://developer.apple.com/documentation/usernotifications/modifying-content-in-newly-delivered-notifications
public struct ServiceExtensionRuntime: Sendable {
    public var budget: Duration
    let downloader: AttachmentDownloader

    /// - Parameter directory: where the extension saves its downloads (the device's data folder).
    public init(directory: URL, budget: Duration = .seconds(30)) {
        self.budget = budget
        self.downloader = AttachmentDownloader(directory: directory)
    }

    /// The content to show for a mutable-content push with a visible alert, and what the extension did.
    public func run(_ manifest: ServiceExtensionManifest, content original: NotificationContent,
                    deliveryID: String) async -> (NotificationContent, ExtensionRun) {
        let started = ContinuousClock.now
        let context = ExtensionContext(downloader: downloader, deliveryID: deliveryID, deadline: started + budget)
        let budget = budget
        let result = await withTaskGroup(of: ExtensionResult?.self) { tasks in
            tasks.addTask { await manifest.kind.builtIn.didReceive(original, context: context) }
            tasks.addTask {
                try? await Task.sleep(until: started + budget, clock: .continuous)
                return nil
            }
            let first = await tasks.next() ?? nil
            tasks.cancelAll()
            return first
        }
        let elapsed = ContinuousClock.now - started
        let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let outcome: ExtensionRun.Outcome = result == nil ? .expired : .completed
        let handedOver = result ?? manifest.kind.builtIn.willExpire(original)
        let (shown, diagnostic) = Self.shown(handedOver, original: original)
        return (shown, ExtensionRun(ran: true, kind: manifest.kind, outcome: outcome,
                                    diagnostic: result == nil ? "the extension did not call its content handler within \(budget); at expiry \(diagnostic)" : diagnostic,
                                    durationMs: milliseconds))
    }

    /// What iOS shows for what the extension handed over: that, unless it asked for the original or removed the
    /// alert text (Apple: the extension may change the text but not remove it; iOS then shows the original).
    static func shown(_ result: ExtensionResult, original: NotificationContent) -> (NotificationContent, String) {
        if result.showsOriginal { return (original, result.diagnostic) }
        guard result.content.hasVisibleAlert else {
            return (original, result.diagnostic + "; the extension removed the alert text, so iOS shows the original content")
        }
        return (result.content, result.diagnostic)
    }
}
