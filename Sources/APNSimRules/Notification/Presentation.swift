/// Where a notification the device displays appears, as the device decided it, so that a page or a test shows what the
/// device shows instead of working it out again: its group in Notification Center, and whether it came as a banner
/// and stays in the list (Apple, "UNNotificationPresentationOptions",
/// https://developer.apple.com/documentation/usernotifications/unnotificationpresentationoptions).
public struct Presentation: Sendable, Hashable, Codable {
    /// The app it is grouped under.
    public var bundleID: String
    /// The thread it is grouped in within the app (its `thread-id`, or the extension's `threadIdentifier`); `nil` when
    /// it has none: iOS's automatic grouping then puts it with the app's other notifications without a thread.
    public var thread: String?
    /// Shown as a banner: the app was in the background, or its `willPresent` handler returned `.banner`.
    public var banner: Bool
    /// Kept in Notification Center's list: the app was in the background, or its handler returned `.list`.
    public var list: Bool
    /// When it waits for the user's Scheduled Summary: the summary time it is delivered at (RFC 3339). It is in the
    /// list from then on.
    public var summary: String?

    public init(bundleID: String, thread: String?, banner: Bool, list: Bool) {
        self.bundleID = bundleID
        self.thread = thread
        self.banner = banner
        self.list = list
    }
}

/// In JSON the thread is `threadID`, as the content's is; until the next release it is also written as `thread`, its
/// spelling before 2026-11-29 (README, "Changelog"), and either is read.
extension Presentation {
    enum CodingKeys: String, CodingKey {
        case bundleID, threadID, banner, list, summary
        /// The old spelling of `threadID`.
        case thread
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        thread = try container.decodeIfPresent(String.self, forKey: .threadID) ?? container.decodeIfPresent(String.self, forKey: .thread)
        banner = try container.decode(Bool.self, forKey: .banner)
        list = try container.decode(Bool.self, forKey: .list)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encodeIfPresent(thread, forKey: .threadID)
        try container.encodeIfPresent(thread, forKey: .thread)
        try container.encode(banner, forKey: .banner)
        try container.encode(list, forKey: .list)
        try container.encodeIfPresent(summary, forKey: .summary)
    }
}
