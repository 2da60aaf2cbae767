/// A notification service extension embedded in an app: its bundle ID and what runs it.
///
/// Apple, "UNNotificationServiceExtension",
/// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension
public struct ServiceExtensionManifest: Sendable, Hashable, Codable {
    /// The extension's own bundle ID, the app's followed by a suffix (`com.example.app.NotificationService`).
    public var bundleID: String
    /// Which built-in extension runs in it.
    public var kind: ExtensionKind

    public init(bundleID: String, kind: ExtensionKind) {
        self.bundleID = bundleID
        self.kind = kind
    }
}

/// The extensions apnsim runs itself, each doing what its vendor's SDK documents for rich media.
public enum ExtensionKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Braze: downloads `ab.att.url`, saves it with `ab.att.type` as the file extension, attaches it; without a
    /// type, or on any failure, the original content is shown.
    case braze
    /// Salesforce Marketing Cloud MobilePush: downloads `_mediaUrl` (named by the URL's last path component) and
    /// attaches it; on any failure, and when time runs out, shows `_mediaAlt` as the body.
    case salesforce
    /// Sailthru / Marigold: attaches `_st.video_url` when there is one, else `_st.image_url`; the file's extension
    /// comes from the Content-Type, then the URL, else `.jpg`.
    case sailthru
}
