/// The extensions apnsim runs itself, each doing what its vendor's SDK documents for rich media. Extensions users
/// write themselves will sit beside these.
public enum ExtensionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Picks one of the others by the payload's keys (`ab` → braze, `_mediaUrl` → salesforce…) and records which.
    case auto
    /// Braze: downloads `ab.att.url`, saves it with `ab.att.type` as the file extension, attaches it; without a
    /// type, or on any failure, the original content is shown.
    case braze
    /// Salesforce Marketing Cloud MobilePush: attaches `_mediaUrl` (downloaded, or a file bundled with the app);
    /// on any failure, and when time runs out, shows `_mediaAlt` as the body.
    case salesforce
    /// Sailthru / Marigold: attaches `_st.video_url` when there is one, else `_st.image_url`; the file's extension
    /// comes from the Content-Type, then the URL, else `.jpg`.
    case sailthru
    /// OneSignal: attaches every URL of `att` (`{"id": "url"}`), typed by `?filename=`, the Content-Type, then the URL.
    case onesignal
    /// Firebase Cloud Messaging: attaches `fcm_options.image`, named by the response's suggested file name.
    case firebase
    /// Airship: attaches `com.urbanairship.media_attachment`'s URLs, its `content` replacing the text.
    case airship
    /// Iterable: attaches `itbl.attachment-url`, named by the response's suggested file name.
    case iterable
    /// CleverTap: attaches `ct_mediaUrl` typed by `ct_mediaType` (image → jpg, video → mp4, audio → mp3).
    case clevertap
    /// An executable of the team's own (`executable:`), in any language, speaking the JSON-lines protocol of
    /// docs/extension-protocol.md on its standard input and output.
    case executable
    /// A team's own `NotificationService.swift` (`source:`, a file or a folder of Swift files), written against
    /// Apple's UserNotifications: apnsim builds it once with its mirror of that API (docs/own-extensions.md) and runs
    /// it as an `executable`.
    case swift
    /// Does what the push's `apnsim.extension` says (hang, crash, throw, call its handler twice, hold memory,
    /// suppress), for testing what a misbehaving extension does to the send-to-display flow.
    case scripted
}
