import APNSimRules

/// A scenario file as written (docs/scenarios.md has every key): a world, then steps that send pushes, act on
/// devices and wait, each with what must have happened.
///
/// ```yaml
/// name: A Braze image is attached
/// world: { extends: ../sandbox.yaml }
/// steps:
///   - send: { device: iphone-dev, app: com.example.app, payload: {…} }
///     expect: { status: 200, delivery: { outcome: displayed } }
/// ```
public struct Scenario: Codable, Sendable {
    /// What the scenario shows, as the report names it.
    public var name: String
    /// The world it runs in.
    public var world: WorldChanges
    /// The folder the media server serves (relative to the file); apnsim's fixtures when absent.
    public var media: String?
    public var steps: [Step]

    /// A world file's keys, plus `extends:` naming the world file these change (relative to the scenario).
    public struct WorldChanges: Codable, Sendable {
        public var extends: String?
        public var teams: [World.Team]?
        public var keys: [WorldFile.Key]?
        public var apps: [World.App]?
        public var tokens: [World.TokenRecord]?
        public var devices: [World.DeviceSpec]?

        var file: WorldFile { WorldFile(teams: teams, keys: keys, apps: apps, tokens: tokens, devices: devices) }
    }

    /// One thing that happens, and what must follow from it. A step does one of `send`, `device` or `wait`, or
    /// only checks (`expect` alone).
    public struct Step: Codable, Sendable {
        /// Names the step in the report; the step's action describes it otherwise.
        public var name: String?
        public var send: Send?
        /// A `.apns` file sent to an app on a device, as `xcrun simctl push` does.
        public var push: Push?
        public var device: DeviceAction?
        /// Waits this long before the next step (only where nothing can be awaited instead).
        public var wait: ScenarioDuration?
        /// Moves the world's virtual clock ahead (`POST /v1/clock`): token ages, stored pushes' expiry, background
        /// budgets and fault windows see the time pass at once.
        public var advance: ScenarioDuration?
        /// Adds a fault (`POST /v1/faults`, docs/faults.md), or `clear` removes every fault.
        public var fault: FaultStep?
        /// Creates or deletes a broadcast channel through the channel management API.
        public var channel: ChannelStep?
        /// The user taps a displayed notification, or presses one of its buttons (`action`, with `text` for a
        /// text-input action): `POST /v1/devices/{id}/tap` (docs/interactions.md).
        public var tap: Interaction?
        /// The user dismisses a displayed notification: `POST /v1/devices/{id}/dismiss`.
        public var dismiss: Interaction?
        public var expect: Expectation?
    }

    /// `{device, action?, text?, apnsId?}`: the notification the scenario's last accepted push to `device` showed, or
    /// the one push `apnsId` showed.
    public struct Interaction: Codable, Sendable {
        public var device: String
        public var action: String?
        public var text: String?
        public var apnsID: String?

        /// Swift names by Swift's conventions; the file's as every record and query spells them.
        enum CodingKeys: String, CodingKey {
            case device, action, text, apnsID = "apnsId"
        }
    }

    /// `{create: NAME, app, storagePolicy?}` or `{delete: NAME, app}`: a channel the scenario calls NAME (steps name it
    /// in `send.broadcast` and a device's `startActivity`); its ID is the one the gateway gives it.
    public struct ChannelStep: Codable, Sendable {
        public var create: String?
        public var delete: String?
        public var app: String
        /// `message-storage-policy`: 1 (the most recent message is kept, the default) or 0.
        public var storagePolicy: Int?
        public var environment: APNsEnvironment?
    }

    /// A provider request to the gateway's provider API.
    public struct Send: Codable, Sendable {
        public init() {}

        /// With `app`: the token the gateway gave that app on that device.
        public var device: String?
        public var app: String?
        /// With `device` and `app`: send to the push token of the app's newest Live Activity of this `ActivityAttributes`
        /// type; the push type is then `liveactivity` and the topic `APP.push-type.liveactivity` unless given.
        public var activity: String?
        /// With `device` and `app`: send to the app's push-to-start token for this type (as `activity` for the rest).
        public var pushToStart: String?
        /// With `device` and `app`: `true` sends to the app's widget push token; the push type is then `widgets`, the
        /// topic `APP.push-type.widgets` and the payload `{"aps":{"content-changed":true}}` unless given.
        public var widgets: Bool?
        /// With `device` and `app`: send to the push token of the app's control of this kind (push type `controls`, topic
        /// `APP.push-type.controls`, the same payload, unless given).
        public var control: String?
        /// A token as hex, instead of `device` and `app`.
        public var token: String?
        /// With `app` (no device): a broadcast on the channel a `channel` step created under this name
        /// (`POST /4/broadcasts/apps/APP`, push type `liveactivity` unless given).
        public var broadcast: String?
        /// The endpoint to send to; the app's environment on the device (or development) when absent.
        public var environment: APNsEnvironment?
        /// `apns-topic`; the app's bundle ID when absent (`none` sends no topic header).
        public var topic: String?
        /// `apns-push-type`; `alert` when absent (`none` sends no push-type header).
        public var pushType: String?
        public var priority: Int?
        public var expiration: Int?
        /// `apns-expiration` this long after the world's now (`1h`).
        public var expiresIn: ScenarioDuration?
        public var collapseId: String?
        public var apnsID: String?
        /// Any other headers, sent as given.
        public var headers: [String: String]?
        /// The payload: a mapping is sent as JSON, a string as it is (for malformed bodies).
        public var payload: JSONValue?
        /// The payload read from a file (relative to the scenario).
        public var payloadFile: String?
        /// How the provider authenticates; the sandbox team's key when absent.
        public var auth: Auth?

        /// Swift names by Swift's conventions; the file's as every record and query spells them.
        enum CodingKeys: String, CodingKey {
            case device, app, activity, pushToStart, widgets, control, token, broadcast, environment, topic, pushType, priority, expiration, expiresIn
            case collapseId, apnsID = "apnsId", headers, payload, payloadFile, auth
        }
    }

    /// `{device, file, app?}`: the file's "Simulator Target Bundle" names the app unless `app` does.
    public struct Push: Codable, Sendable {
        public var device: String
        /// Relative to the scenario.
        public var file: String
        public var app: String?
    }

    /// Token auth with a key (a JWT signed by its .p8), or certificate auth.
    public struct Auth: Codable, Sendable {
        /// The key ID the JWT names; `SIMKEY0001` when absent.
        public var key: String?
        /// The team ID the JWT names; `SIMTEAM001` when absent.
        public var team: String?
        /// The .p8 that signs; the certificates folder's `AuthKey_<key>.p8` when absent.
        public var p8: String?
        /// The JWT's `iat` this long before now (`61m` for an expired token).
        public var issuedAgo: ScenarioDuration?
        /// A client certificate (PEM) instead of a JWT, with its key.
        public var certificate: String?
        public var certificateKey: String?
        /// `true`: no authorization at all.
        public var none: Bool?
    }

    /// A fault to add, or `clear`.
    public enum FaultStep: Codable, Sendable {
        case clear
        case add(Fault)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let word = try? container.decode(String.self) {
                guard word == "clear" else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                            debugDescription: "expected a fault or clear, found \"\(word)\""))
                }
                self = .clear
            } else {
                self = .add(try container.decode(Fault.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .clear: try container.encode("clear")
            case .add(let fault): try container.encode(fault)
            }
        }
    }

    /// Something done to a device through the control API.
    public struct DeviceAction: Codable, Sendable {
        public var id: String
        public var action: Kind
        /// `install`, `uninstall`: the app.
        public var app: String?
        /// `install`: the environment it is signed for (development unless given) and its team (the world's).
        public var environment: APNsEnvironment?
        public var team: String?
        /// `foreground`: what the app's willPresent returns (`banner`, `list`, `sound`, `badge`; none unless given).
        public var options: [String]?
        /// `startActivity`, `endActivity`: the `ActivityAttributes` type (`endActivity` ends the app's newest of it).
        public var type: String?
        /// `startActivity`: the static attributes; `startActivity`, `endActivity`: the content state (`endActivity`:
        /// the final one, the last when absent).
        public var attributes: JSONValue?
        public var contentState: JSONValue?
        /// `endActivity`: when it leaves the Lock Screen (RFC 3339); four hours after the end when absent.
        public var dismissalDate: String?
        /// `startActivity`: the channel (a `channel` step's name) it subscribes to instead of getting a push token.
        public var channel: String?
        /// `startActivity`: when it starts (RFC 3339), or how long after the world's now (`startIn: 1h`): scheduled, with
        /// no token until then (iOS 26).
        public var start: String?
        public var startIn: ScenarioDuration?
        /// `focus`: the Focus's name (Do Not Disturb, Sleep, Work or any other) and the apps it lets through.
        public var name: String?
        public var allowedApps: [String]?
        /// `summary`: its times of day (`HH:mm`), the apps in it (every app when absent) and its time zone (UTC when absent).
        public var times: [String]?
        public var apps: [String]?
        public var timeZone: String?

        public enum Kind: String, Codable, Sendable {
            /// The device drops off the network: pushes are held, as APNs stores them.
            case offline
            /// It comes back, and receives what was held.
            case online
            /// An app is installed and registers for a token (or iOS refuses it: expect `install.refused`).
            case install
            /// An app is removed: its token answers 410 Unregistered.
            case uninstall
            /// An app comes to the foreground: its willPresent decides what a push shows.
            case foreground
            /// It goes back to the background.
            case background
            /// The device restarts: its link drops, its apps' extension processes end, and it comes back.
            case restart
            /// The app starts a Live Activity, as `Activity.request` does (`POST /v1/devices/{id}/activities`).
            case startActivity
            /// The app ends its newest activity of `type`, as `Activity.end` does.
            case endActivity
            /// The user turns on the Focus `name`, which lets `allowedApps` through (docs/interactions.md, "Focus").
            case focus
            /// The user turns the Focus off.
            case focusOff
            /// The user sets a Scheduled Summary at `times` for `apps` (docs/interactions.md, "Scheduled Summary").
            case summary
            /// The user turns it off.
            case summaryOff
            /// The device delivers its summary now, as if its time had come (`expect.summary` matches what it delivered).
            case deliverSummary
        }
    }

    /// What must be true after the step.
    public struct Expectation: Codable, Sendable {
        /// The provider API's answer to the step's send.
        public var status: Int?
        public var reason: String?
        /// Instead of an answer, the gateway ends the connection with GOAWAY: `{reason, lastStreamId, errorCode}`
        /// match this pattern.
        public var goAway: JSONValue?
        /// The push's stream was reset (RST_STREAM) with this HTTP/2 error code instead of answered.
        public var reset: Int?
        /// The connection was closed under the send without GOAWAY.
        public var connectionDropped: Bool?
        /// No answer came within this time (no response, GOAWAY or close: a `hang` fault, docs/faults.md): the
        /// provider gives up, as its own timeout would, and closes the connection; the step takes that long.
        public var unanswered: ScenarioDuration?
        /// The SETTINGS the gateway has sent on the send's connection (`{maxConcurrentStreams: 1}`) match this pattern.
        public var settings: JSONValue?
        /// The send's record (`GET /v1/sends?apnsId=…`) matches this pattern.
        public var sent: JSONValue?
        /// The send's delivery record (`GET /v1/deliveries`) matches this pattern (docs/scenarios.md, "Patterns").
        public var delivery: JSONValue?
        /// For a send: nothing of it is displayed within this time (the device is offline, the push was throttled,
        /// dropped or not visible); the step takes that long.
        public var nothingDisplayed: ScenarioDuration?
        /// A device's deliveries so far, oldest first, match these patterns one for one.
        public var deliveries: Deliveries?
        /// An app's install on a device: its token or iOS's refusal.
        public var install: Install?
        /// `{device, app, type, …}`: the app's newest Live Activity of that type, as `GET /v1/activities` shows it,
        /// matches the other keys as a pattern (`contentState`, `ended`, `stale`, `visible`, `dismissalDate`…).
        public var activity: JSONValue?
        /// For a `tap` or `dismiss`: its interaction record matches this pattern (`opened`, `event`, `delivered`…), or
        /// `{refused: PATTERN}`: it was refused (422) with a sentence matching PATTERN.
        public var interaction: JSONValue?
        /// For a `deliverSummary` device action: the summary record matches this pattern (`notifications`…).
        public var summary: JSONValue?
        /// For a broadcast: it reached this many activities, and each delivery matches `delivery`.
        public var deliveredTo: Int?
        /// How long to wait for the delivery or install; 10 s when absent.
        public var within: ScenarioDuration?
    }

    public struct Deliveries: Codable, Sendable {
        public var device: String
        /// Only this app's deliveries.
        public var app: String?
        /// One pattern per delivery, oldest first; the step waits until the device has as many with an outcome.
        public var records: [JSONValue]
    }

    public struct Install: Codable, Sendable {
        public var device: String
        public var app: String
        /// iOS's refusal matches this pattern (`{contains: "…"}` or the whole text).
        public var refused: JSONValue?
        /// `true`: the app registered and has a token.
        public var registered: Bool?
    }

    /// Every key a scenario has anywhere, to suggest the one meant by a misspelt key.
    static let vocabulary: Set<String> = [
        "name", "world", "media", "steps", "extends", "push", "file", "advance", "expiresIn", "options", "teams", "keys", "apps", "tokens", "devices", "send", "device", "wait",
        "expect", "app", "token", "environment", "topic", "pushType", "priority", "expiration", "collapseId", "apnsId",
        "headers", "payload", "payloadFile", "auth", "key", "team", "p8", "issuedAgo", "certificate", "certificateKey", "none",
        "id", "action", "status", "reason", "goAway", "lastStreamId", "errorCode", "fault", "reset", "connectionDropped", "unanswered", "settings", "sent", "atLeast", "atMost", "kind", "after", "at", "seconds", "count", "latencyMs", "latencyMaxMs", "seed", "perSecond", "maxConcurrentStreams", "drop", "skewSeconds", "delivery", "nothingDisplayed", "deliveries", "records", "install", "within",
        "refused", "registered", "bundleID", "serviceExtension", "resources", "kind", "source", "executable", "budget",
        "model", "os", "alerts", "extensionBudget", "extensionCategoriesApply", "scope", "publicKey", "publicKeyFile",
        "topics", "relatedKeyID", "state", "invalidSince", "contains", "matches", "categories", "actions", "identifier", "appGroups", "appGroup", "profile", "pushCapability", "package", "product",
        "title", "textInput", "buttonTitle", "placeholder", "icon", "systemImageName", "templateImageName", "intentIdentifiers",
        "hiddenPreviewsBodyPlaceholder", "categorySummaryFormat", "activity", "pushToStart", "type", "attributes", "contentState",
        "dismissalDate", "activityTypes", "infoPlist", "channel", "create", "delete", "storagePolicy", "broadcast", "deliveredTo",
        "tap", "dismiss", "text", "interaction", "responses", "urlKeys", "forward", "entitlements", "allowedApps",
        "widgets", "control", "controls", "kinds", "pushHandler", "dailyReloads", "start", "startIn", "scheduled",
    ]
}
