import APNSimCore
import Foundation

/// An extension apnsim runs itself: `didReceive` as `UNNotificationServiceExtension` has it, returning the
/// content to show (what it passes its content handler) and a sentence saying what it did.
protocol BuiltInExtension: Sendable {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult
    /// `serviceExtensionTimeWillExpire`: what the extension hands over when its time is up.
    func willExpire(_ content: NotificationContent) -> ExtensionResult
}

extension BuiltInExtension {
    /// The Xcode template hands over its best attempt; with nothing attached yet, that is the original.
    func willExpire(_ content: NotificationContent) -> ExtensionResult {
        .original("the original content is shown")
    }
}

/// The content an extension hands back, and why.
struct ExtensionResult: Sendable {
    var content: NotificationContent
    var diagnostic: String
    /// `true`: show the push as it arrived, whatever `content` is.
    var showsOriginal = false

    static func original(_ diagnostic: String) -> ExtensionResult {
        ExtensionResult(content: NotificationContent(), diagnostic: diagnostic, showsOriginal: true)
    }

    /// `content` with `file` attached; a file iOS refuses leaves the content as it was, with the refusal on record.
    /// `what` names the file in the diagnostic.
    static func attaching(_ file: NotificationContent.Attachment, to content: NotificationContent, what: String) -> ExtensionResult {
        var changed = content
        changed.attachments = [file]
        guard let refusal = file.refusal else {
            return .init(content: changed, diagnostic: "attached \(what) as \(file.type ?? "an unknown type")")
        }
        return .init(content: changed, diagnostic: "iOS refused \(what) (\(refusal)); the original content is shown")
    }
}

/// What a running extension may use: downloads into the device's folder, within the time it has left.
struct ExtensionContext: Sendable {
    let downloader: AttachmentDownloader
    let deliveryID: String
    let deadline: ContinuousClock.Instant

    /// Downloads `url` and attaches it, named after the delivery, with `fileExtension`.
    func attach(_ url: String, fileExtension: String) async throws(DownloadError) -> NotificationContent.Attachment {
        try await attach(url) { _ in fileExtension }
    }

    /// Downloads `url` and attaches it, named after the delivery, with the extension `fileExtension` picks from the
    /// response's Content-Type.
    func attach(_ url: String, fileExtension: @escaping @Sendable (_ contentType: String?) -> String) async throws(DownloadError)
        -> NotificationContent.Attachment {
        let left = deadline - .now
        guard left > .zero else { throw DownloadError("no time left to download \(url)") }
        return try await downloader.attach(url, identifier: deliveryID, name: deliveryID, timeout: left, fileExtension: fileExtension)
    }
}

extension ExtensionKind {
    var builtIn: any BuiltInExtension {
        switch self {
        case .braze: BrazeExtension()
        case .salesforce: SalesforceExtension()
        case .sailthru: SailthruExtension()
        }
    }
}
