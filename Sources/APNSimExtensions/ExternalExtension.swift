import APNSimRules
import Foundation

/// Kind `executable`: each push goes to the app's extension process as a `request`; what it hands over comes back
/// through its content handler as the process writes it; at the deadline it gets `expire`. While it works, the
/// memory it holds is checked against its limit.
struct ExternalExtension: BuiltInExtension {
    let process: Result<ExternalExtensionProcess, ExtensionError>
    let directory: URL
    let budget: Duration
    /// The categories the app has registered, which the extension reads through `UNUserNotificationCenter`.
    let categories: [NotificationCategory]
    /// After the first content, how long later calls are still counted against this push.
    static let settle: Duration = .milliseconds(100)

    func didReceive(_ content: NotificationContent, context: ExtensionContext) async throws -> ExtensionResult? {
        let process: ExternalExtensionProcess
        switch self.process {
        case .success(let running): process = running
        case .failure(let error):
            context.handler.send(.crashed(error.description))
            return nil
        }
        let progress = process.begin(id: context.deliveryID, handler: context.handler, original: content)
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try process.send(ExtensionProtocol.Request(id: context.deliveryID, content: .init(content),
                                                       attachmentsDirectory: directory.path, budgetMs: budget.milliseconds,
                                                       categories: categories))
        } catch {
            context.handler.send(.crashed(error.description))
            return nil
        }
        let memory = Task {
            while !Task.isCancelled {
                if let resident = process.residentBytes { context.handler.resident(resident) }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { memory.cancel() }
        for await _ in progress { break }
        try await Task.sleep(for: Self.settle)
        return nil
    }

    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        if case .success(let process) = process { try? process.send(ExtensionProtocol.Expire(id: context.deliveryID)) }
        return nil  // what it hands over now comes through its content handler
    }
}
