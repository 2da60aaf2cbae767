/// What a notification service extension did with one push, as the delivery record shows it.
public struct ExtensionRun: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The extension called its content handler in time.
        case completed
        /// The budget ran out; iOS showed what the expiry callback gave, or the original.
        case expired
        case crashed
        /// iOS stopped it (memory budget).
        case killed
        /// iOS did not start it; `diagnostic` says why.
        case notLaunched
    }

    public var ran: Bool
    /// The kind that ran: for an `auto` extension, the one it picked.
    public var kind: ExtensionKind?
    /// For an `auto` extension, the payload key it picked `kind` by (`ab.att`), or why it picked none.
    public var pickedBy: String?
    /// Whether the push started the app's extension process (`false`: one still running from an earlier push
    /// took it, as iOS reuses them).
    public var launched: Bool
    /// The extension handed over empty content and has the filtering entitlement: iOS shows nothing.
    public var suppressed: Bool
    public var outcome: Outcome
    /// Why, in a sentence.
    public var diagnostic: String
    public var durationMs: Int
    /// Things the extension did that iOS does not allow, such as calling its content handler twice.
    public var violations: [String]
    /// What an extension process wrote to its log while it handled this push (`print`, `Logger`, `os_log`, standard
    /// error, the protocol's `log` messages), one line each, at most ``logLimit`` lines of ``logLineLimit`` characters.
    public var log: [String]
    /// The attachments the extension handed over that iOS refused, each with its `refusal` (UNErrorDomain code and
    /// sentence): not part of the content, which is what the device shows.
    public var refusedAttachments: [NotificationContent.Attachment]
    /// The app's categories as the extension set them (`setNotificationCategories(_:)`, the last call) while it
    /// handled this push; `nil` when it set none. The device keeps them for the app from then on.
    public var registeredCategories: [NotificationCategory]?
    /// The media the extension downloaded through the device (a built-in extension's attachments), each with its
    /// HTTP status, size and time; `nil` when it downloaded nothing. An extension process of its own (`executable`,
    /// `swift`) downloads with its own client, which the device does not see.
    public var downloads: [MediaDownload]?

    public static let logLimit = 50
    public static let logLineLimit = 500

    public init(ran: Bool, kind: ExtensionKind?, outcome: Outcome, diagnostic: String, durationMs: Int = 0,
                violations: [String] = [], pickedBy: String? = nil, launched: Bool = false, suppressed: Bool = false, log: [String] = [],
                refusedAttachments: [NotificationContent.Attachment] = []) {
        self.ran = ran
        self.kind = kind
        self.pickedBy = pickedBy
        self.launched = launched
        self.suppressed = suppressed
        self.outcome = outcome
        self.diagnostic = diagnostic
        self.durationMs = durationMs
        self.violations = violations
        self.log = log
        self.refusedAttachments = refusedAttachments
    }

    enum CodingKeys: String, CodingKey {
        case ran, kind, pickedBy, launched, suppressed, outcome, diagnostic, durationMs, violations, log, refusedAttachments,
             registeredCategories, downloads
    }

    /// `log` and `refusedAttachments` are left out when empty, so records of most pushes read as before.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ran, forKey: .ran)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encodeIfPresent(pickedBy, forKey: .pickedBy)
        try container.encode(launched, forKey: .launched)
        try container.encode(suppressed, forKey: .suppressed)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(diagnostic, forKey: .diagnostic)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(violations, forKey: .violations)
        if !log.isEmpty { try container.encode(log, forKey: .log) }
        if !refusedAttachments.isEmpty { try container.encode(refusedAttachments, forKey: .refusedAttachments) }
        try container.encodeIfPresent(registeredCategories, forKey: .registeredCategories)
        try container.encodeIfPresent(downloads, forKey: .downloads)
    }

    /// Records written before `pickedBy`, `launched`, `suppressed`, `log` and `refusedAttachments` existed read with
    /// their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(ran: try container.decode(Bool.self, forKey: .ran),
                  kind: try container.decodeIfPresent(ExtensionKind.self, forKey: .kind),
                  outcome: try container.decode(Outcome.self, forKey: .outcome),
                  diagnostic: try container.decode(String.self, forKey: .diagnostic),
                  durationMs: try container.decodeIfPresent(Int.self, forKey: .durationMs) ?? 0,
                  violations: try container.decodeIfPresent([String].self, forKey: .violations) ?? [],
                  pickedBy: try container.decodeIfPresent(String.self, forKey: .pickedBy),
                  launched: try container.decodeIfPresent(Bool.self, forKey: .launched) ?? false,
                  suppressed: try container.decodeIfPresent(Bool.self, forKey: .suppressed) ?? false,
                  log: try container.decodeIfPresent([String].self, forKey: .log) ?? [],
                  refusedAttachments: try container.decodeIfPresent([NotificationContent.Attachment].self, forKey: .refusedAttachments) ?? [])
        registeredCategories = try container.decodeIfPresent([NotificationCategory].self, forKey: .registeredCategories)
        downloads = try container.decodeIfPresent([MediaDownload].self, forKey: .downloads)
    }
}

/// One download an extension made for an attachment (`ExtensionRun.downloads`, counted by `GET /metrics`).
public struct MediaDownload: Sendable, Hashable, Codable {
    public var url: String
    /// The HTTP status the server answered; `nil` when none came (refused, unreachable, out of time).
    public var status: Int?
    /// Bytes received.
    public var bytes: Int
    public var durationMs: Int
    /// Why it failed, in a sentence; `nil` when the file came.
    public var error: String?

    public init(url: String, status: Int?, bytes: Int, durationMs: Int, error: String? = nil) {
        self.url = url
        self.status = status
        self.bytes = bytes
        self.durationMs = durationMs
        self.error = error
    }
}
