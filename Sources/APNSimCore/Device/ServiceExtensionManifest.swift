/// A notification service extension embedded in an app: its bundle ID and what runs it.
///
/// Apple, "UNNotificationServiceExtension",
/// https://developer.apple.com/documentation/usernotifications/unnotificationserviceextension
public struct ServiceExtensionManifest: Sendable, Hashable, Codable {
    /// The extension's own bundle ID, the app's followed by a suffix (`com.example.app.NotificationService`).
    public var bundleID: String
    /// Which built-in extension runs in it.
    public var kind: ExtensionKind
    /// The lowest iOS it runs on (`17.0`); `nil`: any.
    public var deploymentTarget: String?
    /// Whether the app's "Embed App Extensions" phase copies it into `PlugIns/`; iOS never finds one that is not.
    public var embedded: Bool

    public init(bundleID: String, kind: ExtensionKind, deploymentTarget: String? = nil, embedded: Bool = true) {
        self.bundleID = bundleID
        self.kind = kind
        self.deploymentTarget = deploymentTarget
        self.embedded = embedded
    }

    enum CodingKeys: String, CodingKey { case bundleID, kind, deploymentTarget, embedded }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        kind = try container.decode(ExtensionKind.self, forKey: .kind)
        deploymentTarget = try container.decodeIfPresent(String.self, forKey: .deploymentTarget)
        embedded = try container.decodeIfPresent(Bool.self, forKey: .embedded) ?? true
    }

    /// Why iOS would not start this extension for an alert push, in the words of the delivery record, or `nil` when
    /// it would. iOS says nothing in these cases; apnsim says why (Apple, "Modifying content in newly delivered
    /// notifications": the push must be a mutable-content alert with text).
    public func reasonNotLaunched(payload: PushPayload, deviceOS: String) -> String? {
        guard payload.mutableContent else { return "extension not launched: the push has no \"mutable-content\": 1 in aps" }
        guard payload.content.hasVisibleAlert else {
            return "extension not launched: the push shows no alert text (a badge or sound alone never reaches it)"
        }
        guard embedded else {
            return "extension not launched: \(bundleID) is not embedded in the app (its Embed App Extensions phase)"
        }
        if let deploymentTarget, let device = Self.version(deviceOS), let target = Self.version(deploymentTarget),
           device.lexicographicallyPrecedes(target) {
            return "extension not launched: its deployment target \(deploymentTarget) is above the device's \(Self.versionText(deviceOS))"
        }
        return nil
    }

    /// `iOS 16.4` or `17.0.1` → [16, 4] / [17, 0, 1], padded to three parts so 17 and 17.0 compare equal.
    static func version(_ text: String) -> [Int]? {
        let numbers = versionText(text).split(separator: ".").map { Int($0) }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else { return nil }
        return Array((numbers.compactMap { $0 } + [0, 0, 0]).prefix(3))
    }

    static func versionText(_ text: String) -> String {
        String(text.drop { !$0.isNumber })
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
