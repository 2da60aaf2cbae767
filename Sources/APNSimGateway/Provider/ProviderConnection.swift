import APNSimRules
import APNSimStore
import NIOCore
import NIOHTTP2

/// The state of one provider connection: its environment, how it authenticates, and what it has been allowed.
/// Confined to the connection's event loop, shared by the handlers of its pipeline.
final class ProviderConnection {
    /// Which of Apple's APIs a listener serves: pushes and broadcasts (`api.push.apple.com`, here 2197 and 2198), or
    /// channel management (`api-manage-broadcast.push.apple.com`, ports 2195 and 2196).
    enum Role: Sendable {
        case provider
        case management
    }

    let environment: APNsEnvironment
    let role: Role
    let services: GatewayServices
    let remoteAddress: String
    var auth: ConnectionAuth
    /// Whether the TLS handshake is done, and so ``auth`` says how the connection authenticates.
    var tlsDone = false
    /// Generated `apns-id` and `apns-unique-id` values.
    var responseIDs = RandomUUIDs()
    /// What the connection is doing: open or going away, its streams, the answers it has in flight.
    var state = ProviderConnectionStateMachine()
    /// The highest stream processed, for GOAWAY's last-stream-id.
    var lastStreamID: HTTP2StreamID { state.lastStreamID }
    private var streamLimitRaised = false
    /// Stream limits written as ``streamLimitPlaceholder`` and not yet put on the wire, oldest first.
    private var advertisedStreamLimits: [Int] = []

    /// The SETTINGS_MAX_CONCURRENT_STREAMS NIOHTTP2 is told: more than any client opens, so NIOHTTP2 never takes a
    /// stream over the real limit for a connection error; the gateway keeps the real one (``StreamAllowance``), and
    /// ``ProtocolErrorWatch`` writes it on the wire in the placeholder's place.
    static let streamLimitPlaceholder = 2_147_418_113

    /// The setting that advertises `limit`: the placeholder, with `limit` queued for the wire.
    func streamLimitSetting(_ limit: Int) -> HTTP2Setting {
        advertisedStreamLimits.append(limit)
        return HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.streamLimitPlaceholder)
    }

    /// The oldest limit queued by ``streamLimitSetting(_:)``.
    func takeAdvertisedStreamLimit() -> Int? {
        advertisedStreamLimits.isEmpty ? nil : advertisedStreamLimits.removeFirst()
    }
    /// The connection channel, set when HTTP/2 is configured.
    var channel: (any Channel)?

    init(environment: APNsEnvironment, role: Role = .provider, services: GatewayServices, remoteAddress: String) {
        self.environment = environment
        self.role = role
        self.services = services
        self.remoteAddress = remoteAddress
        self.auth = .token(ProviderTokenSession(configuration: services.tokenSession))
    }

    /// Streams allowed by the SETTINGS the connection starts with (Apple, "Establishing a connection to APNs": one
    /// until a valid token).
    var initialStreamLimit: Int {
        if let injected = services.faults.maxConcurrentStreams(now: services.clock.now()) { return injected }
        if case .token = auth { return services.policy.initialTokenStreams }
        return services.policy.maxConcurrentStreams
    }

    /// Once a token-auth connection has carried a valid token, raise MAX_CONCURRENT_STREAMS with a new SETTINGS frame.
    func raiseStreamLimitIfAuthenticated() {
        guard !streamLimitRaised, case .token(let session) = auth, session.hasAcceptedToken, let channel else { return }
        streamLimitRaised = true
        // A settings fault in force holds the limit where it put it.
        guard services.faults.maxConcurrentStreams(now: services.clock.now()) == nil else { return }
        guard services.policy.maxConcurrentStreams != services.policy.initialTokenStreams else { return }
        let settings = HTTP2Frame(streamID: .rootStream, payload: .settings(.settings([
            streamLimitSetting(services.policy.maxConcurrentStreams),
        ])))
        channel.writeAndFlush(settings, promise: nil)
    }

    /// The SETTINGS the gateway opens every connection with (as provider libraries observe APNs; Apple publishes no
    /// values); its stream limit is queued for the wire (``streamLimitSetting(_:)``), so ask once.
    func openingSettings() -> HTTP2Settings {
        let policy = services.policy
        return [
            HTTP2Setting(parameter: .headerTableSize, value: policy.headerTableSize),
            streamLimitSetting(initialStreamLimit),
            HTTP2Setting(parameter: .initialWindowSize, value: policy.initialWindowSize),
            HTTP2Setting(parameter: .maxFrameSize, value: policy.maxFrameSize),
            HTTP2Setting(parameter: .maxHeaderListSize, value: policy.maxHeaderListSize),
        ]
    }

    /// Records what a fault did to this connection as a send record whose method names it (`GOAWAY`, `DROP`,
    /// `SETTINGS`), so `/v1/sends` shows every fault that acted.
    func recordFault(_ fault: Fault, event: String, explanation: String) {
        services.recorder.record(.faultEvent(fault, event: event, at: services.clock.now(), environment: environment.rawValue,
                                             authMode: auth.modeName, explanation: "\(explanation) (connection from \(remoteAddress))"))
    }
}
