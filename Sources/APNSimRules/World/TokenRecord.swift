import Foundation

extension World {
    /// What APNs knows of one token: an entry of the token table (``TokenTable``). The app and environment it was
    /// issued for, whether it is still good and since when not, what kind of token it is, and which device holds it
    /// or held it until its app was removed. One entry answers both the validator ("is this token good for this
    /// topic?") and the router ("which device gets it, or why none?").
    public struct TokenRecord: Sendable, Hashable {
        public var token: DeviceToken
        public var bundleID: String
        public var environment: APNsEnvironment
        public var state: State
        /// When the token stopped being valid: the 410 `timestamp`. Set by the registry when `state` leaves `active`.
        public var invalidSince: Date?
        /// What the token stands for and who holds it, kept apart for a token a device registered; `nil` for a declared
        /// one. Most tokens of a large world are declared: inline, the two took a million tokens from 270 to 390 MiB.
        private var holding: Holding?

        public var kind: Kind {
            get { holding?.kind ?? .declared }
            set { holding = Holding.of(kind: newValue, holder: holder) }
        }

        /// The device that holds the token, or held it until its app was removed; `nil` for a declared token.
        public var holder: Holder? {
            get { holding?.holder }
            set { holding = Holding.of(kind: kind, holder: newValue) }
        }

        public enum State: String, Sendable, Hashable, Codable {
            case active
            /// The app was removed or stopped accepting pushes: 410 `Unregistered`.
            case unregistered
            /// The token expired: 410 `ExpiredToken`.
            case expired
        }

        /// What a token stands for.
        public enum Kind: Sendable, Hashable {
            /// Declared by the world (a world file, a token set, `POST /v1/tokens`): accepted and shown nowhere.
            case declared
            /// An app's device token (`registerForRemoteNotifications`).
            case device
            /// An app's push-to-start token for one `ActivityAttributes` type (`Activity.pushToStartTokenUpdates`).
            case pushToStart(activityType: String)
            /// A Live Activity's own push token (`Activity.pushTokenUpdates`), by the activity's ID.
            case activity(id: String)
            /// An app's widget push token (`WidgetPushHandler.pushTokenDidChange(_:widgets:)`, iOS 26): one per app, for
            /// the widgets of these kinds.
            case widgets(kinds: [String])
            /// One control's push token (`ControlPushInfo.token`, iOS 18), by the control's kind.
            case control(kind: String)
        }

        /// Who holds a token a device registered.
        public enum Holder: Sendable, Hashable {
            /// This device holds it now: pushes to it go there.
            case device(String)
            /// Its app was removed from this device at that time: no device holds it, and a push the gateway still
            /// accepts (within its uninstall delay) is recorded dropped there rather than lost in silence.
            case removed(from: String, at: Date)

            /// The device that holds it now.
            public var device: String? {
                guard case .device(let id) = self else { return nil }
                return id
            }
        }

        public init(token: DeviceToken, bundleID: String, environment: APNsEnvironment, state: State = .active, invalidSince: Date? = nil,
                    kind: Kind = .declared, holder: Holder? = nil) {
            self.token = token
            self.bundleID = bundleID
            self.environment = environment
            self.state = state
            self.invalidSince = invalidSince
            self.holding = Holding.of(kind: kind, holder: holder)
        }

        public static func == (left: Self, right: Self) -> Bool {
            (left.token, left.bundleID, left.environment, left.state, left.invalidSince)
                == (right.token, right.bundleID, right.environment, right.state, right.invalidSince)
                && left.kind == right.kind && left.holder == right.holder
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(token)
            hasher.combine(bundleID)
            hasher.combine(environment)
            hasher.combine(state)
            hasher.combine(invalidSince)
            hasher.combine(kind)
            hasher.combine(holder)
        }
    }

    /// A token's kind and holder, shared by the copies of its record and replaced whole when either changes.
    private final class Holding: Sendable {
        let kind: TokenRecord.Kind
        let holder: TokenRecord.Holder?

        private init(kind: TokenRecord.Kind, holder: TokenRecord.Holder?) {
            self.kind = kind
            self.holder = holder
        }

        /// The holding of a token of `kind` held by `holder`; `nil` for a declared token no device holds.
        static func of(kind: TokenRecord.Kind, holder: TokenRecord.Holder?) -> Holding? {
            kind == .declared && holder == nil ? nil : Holding(kind: kind, holder: holder)
        }
    }
}

/// A world file and `POST /v1/tokens` give the token, its app, environment, state (`active` when absent) and
/// `invalidSince`: what they give is declared, whatever else is written beside it. `GET /v1/tokens` shows the rest: `kind` (`declared`, `device`,
/// `pushToStart` with `activityType`, `activity` with `activity`, `widgets` with `widgetKinds`, `controls` with `controlKind`), and `device`, or `removedFrom` and `removedAt`.
extension World.TokenRecord: Codable {
    enum CodingKeys: String, CodingKey {
        case token, bundleID, environment, state, invalidSince, kind, activityType, activity, widgetKinds, controlKind, device, removedFrom, removedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(token: try container.decode(DeviceToken.self, forKey: .token),
                  bundleID: try container.decode(String.self, forKey: .bundleID),
                  environment: try container.decode(APNsEnvironment.self, forKey: .environment),
                  state: try container.decodeIfPresent(State.self, forKey: .state) ?? .active,
                  invalidSince: try container.decodeIfPresent(Date.self, forKey: .invalidSince))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(bundleID, forKey: .bundleID)
        try container.encode(environment, forKey: .environment)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(invalidSince, forKey: .invalidSince)
        switch kind {
        case .declared: try container.encode("declared", forKey: .kind)
        case .device: try container.encode("device", forKey: .kind)
        case .pushToStart(let type):
            try container.encode("pushToStart", forKey: .kind)
            try container.encode(type, forKey: .activityType)
        case .activity(let id):
            try container.encode("activity", forKey: .kind)
            try container.encode(id, forKey: .activity)
        case .widgets(let kinds):
            try container.encode("widgets", forKey: .kind)
            try container.encode(kinds, forKey: .widgetKinds)
        case .control(let kind):
            try container.encode("controls", forKey: .kind)
            try container.encode(kind, forKey: .controlKind)
        }
        switch holder {
        case .device(let id)?: try container.encode(id, forKey: .device)
        case .removed(let device, let date)?:
            try container.encode(device, forKey: .removedFrom)
            try container.encode(date, forKey: .removedAt)
        case nil: break
        }
    }
}
