import APNSimRules
import Foundation

/// An extension apnsim runs itself, shaped as `UNNotificationServiceExtension` is: `didReceive` gets the content
/// and returns what it passes its content handler (`nil`: it never calls it); `willExpire` is
/// `serviceExtensionTimeWillExpire`, the last chance to hand something over when time runs out. A thrown error is
/// a crash.
protocol BuiltInExtension: Sendable {
    func didReceive(_ content: NotificationContent, context: ExtensionContext) async throws -> ExtensionResult?
    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult?
}

extension BuiltInExtension {
    /// The Xcode template hands over its best attempt; with nothing attached yet, that is the original.
    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
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

    /// `content` with `files` attached. iOS checks attachments after the extension is done; a refused one stays on
    /// record with its refusal, and the text is shown as it was (Apple does not say more; apnsim's choice).
    /// `what` names the files in the diagnostic.
    static func attaching(_ files: [NotificationContent.Attachment], to content: NotificationContent, what: String) -> ExtensionResult {
        var changed = content
        changed.attachments = files
        let refusals = files.compactMap(\.refusal)
        guard refusals.isEmpty else {
            let list = refusals.map(\.description).joined(separator: "; ")
            return .init(content: changed, diagnostic: "iOS refused \(what) (\(list)); the original content is shown")
        }
        let types = files.map { $0.type ?? "an unknown type" }.joined(separator: ", ")
        return .init(content: changed, diagnostic: "attached \(what) as \(types)")
    }

    static func attaching(_ file: NotificationContent.Attachment, to content: NotificationContent, what: String) -> ExtensionResult {
        attaching([file], to: content, what: what)
    }
}

/// What a running extension may use: downloads into the device's folder within the time it has left, the app
/// bundle's resources, its content handler, and the memory it holds.
struct ExtensionContext: Sendable {
    let downloader: AttachmentDownloader
    let deliveryID: String
    /// When the budget runs out and `serviceExtensionTimeWillExpire` is called.
    let deadline: ContinuousClock.Instant
    /// When iOS ends the extension: the deadline plus the grace period. Downloads may run until then, so a
    /// download never fails on its own time-out ahead of the expiry callback (a URLSession's time-out is longer
    /// than the budget).
    let end: ContinuousClock.Instant
    /// The app bundle's resources folder (`Bundle.main`), when the app declares one.
    let resources: URL?
    let handler: ContentHandler
    /// The categories the app has registered (`getNotificationCategories`).
    var categories: [NotificationCategory] = []

    /// `setNotificationCategories(_:)`: the app's categories are these from now on.
    func register(_ categories: [NotificationCategory]) { handler.registered(categories) }

    /// Downloads `url` and attaches it as `name` (the delivery's ID by default), with `fileExtension`.
    func attach(_ url: String, as name: String? = nil, fileExtension: String) async throws(ExtensionError) -> NotificationContent.Attachment {
        try await attach(url, as: name) { _ in fileExtension }
    }

    /// Downloads `url` and attaches it as `name`, with the extension `fileExtension` picks from the response.
    func attach(_ url: String, as name: String? = nil, fileExtension: @escaping @Sendable (DownloadResponse) -> String)
        async throws(ExtensionError) -> NotificationContent.Attachment {
        let left = end - .now
        guard left > .zero else { throw ExtensionError("no time left to download \(url)") }
        let name = name ?? deliveryID
        let began = ContinuousClock.now
        let response: DownloadResponse
        do {
            response = try await downloader.download(url, timeout: left)
        } catch {
            handler.downloaded(MediaDownload(url: url, status: error.httpStatus, bytes: 0, durationMs: (ContinuousClock.now - began).milliseconds,
                                             error: error.description))
            throw error
        }
        handler.downloaded(MediaDownload(url: url, status: response.status, bytes: response.bytes.count,
                                         durationMs: (ContinuousClock.now - began).milliseconds))
        return try await downloader.save(response.bytes, as: name, fileExtension: fileExtension(response), identifier: name, url: url)
    }

    /// Attaches the file `name` of the app bundle's resources (a copy, as iOS copies bundle files into its store).
    func attachBundled(_ name: String) async throws(ExtensionError) -> NotificationContent.Attachment {
        guard let resources else {
            throw ExtensionError("\(name) is not in the app bundle: the app declares no resources folder")
        }
        let file = resources.appendingPathComponent((name as NSString).lastPathComponent)
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ExtensionError("\(name) is not in the app bundle (\(resources.path))")
        }
        return try await downloader.save(Array(data), as: deliveryID, fileExtension: file.pathExtension, identifier: deliveryID,
                                   url: file.absoluteString)
    }

    /// The extension holds `bytes` more memory; over its limit, iOS kills it.
    func hold(_ bytes: Int) { handler.hold(bytes) }
}

extension ExtensionKind {
    /// The extension of this kind; `auto` is resolved per push (``AutoPick``) before this is asked.
    var builtIn: any BuiltInExtension {
        switch self {
        case .auto: AutoPick.Unpicked()
        case .braze: BrazeExtension()
        case .salesforce: SalesforceExtension()
        case .sailthru: SailthruExtension()
        case .onesignal: OneSignalExtension()
        case .firebase: SuggestedNameExtension.firebase
        case .airship: AirshipExtension()
        case .iterable: IterableExtension()
        case .clevertap: CleverTapExtension()
        case .scripted: ScriptedExtension()
        case .executable, .swift: AutoPick.Unpicked()  // the runtime runs the app's executable instead
        }
    }
}
