import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Tracing

/// Everything a gateway needs to run. Defaults are the ports users type (DESIGN.md); tests set every port to 0.
public struct GatewayConfiguration: Sendable {
    /// The address the provider endpoints and the control API bind to; loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// Provider API port per environment (Apple's alternative port is 2197; apnsim gives production 2198).
    public var ports: [APNsEnvironment: Int] = [.development: 2197, .production: 2198]
    /// Channel management API port per environment, as Apple's `api-manage-broadcast` hosts use them (Apple, "Sending
    /// channel management requests to APNs"); broadcasts themselves go to ``ports``.
    public var managementPorts: [APNsEnvironment: Int] = [.development: 2195, .production: 2196]
    /// Control API port (HTTP, JSON under `/v1`).
    public var controlPort = 8197
    public var controlHost = "127.0.0.1"
    /// Required of every control-API request (`Authorization: Bearer <token>`) when set; the control API refuses to
    /// listen on a non-loopback ``controlHost`` without one.
    public var controlToken: String?
    /// The device link's port (Apple's device port is 5223); `nil` runs no device link.
    public var devicePort: Int? = 5223
    /// Device tokens are derived from this secret (``TokenIssuer``), so a restarted gateway gives devices the
    /// tokens they had.
    public var tokenSecret = TokenIssuer.defaultSecret
    /// When the token of a removed app starts answering 410 `Unregistered` (``UninstallDelay``): by default once the
    /// device tells APNs, as Apple's APNs learns it; `.seconds(0)` at once.
    public var uninstallDelay = UninstallDelay.untilDeviceTells
    /// Seconds between device-link heartbeats.
    public var heartbeatInterval = 15.0
    /// Bytes written to one device link that its device has not read, past which the link ends: a device that stops
    /// reading is gone, as APNs treats one, and what was sent to it waits for its next link (every push without an
    /// `ack` is sent again then; docs/device-link.md), so nothing is lost and nothing grows without bound. 64 MiB holds
    /// about 150,000 pushes in flight, far more than a device process busy with a burst falls behind by
    /// (`Benchmarks/scale.sh 100000` sends 100,000 to one process over 4 links).
    public var deviceLinkBufferLimit = 64 << 20
    /// How long `POST /v1/devices/{id}/apps` waits for the device's answer when it gives no `?wait=`: long enough for
    /// a Swift extension's first build on a cold cache (Sandbox's `waitForSlowPeers` makes it a test run's patience).
    public var installWait: Duration = .seconds(120)
    /// The devices `GET /readyz` waits for, each linked with every app of its spec registered: the world's devices
    /// that `apnsim up` starts. None by default: a gateway alone is ready once it listens, and devices in other
    /// containers link after that.
    public var readyDevices: [World.DeviceSpec] = []
    /// With a store file: answer 200 only once the push is committed to it, so a crash loses no accepted push.
    /// Off, answers go out at once and the last few hundred milliseconds of accepted pushes can be lost to a kill.
    public var durableAnswers = true
    /// How many sends and deliveries the record keeps, and for how long (the oldest go first).
    public var records = RecordLimits()
    /// This gateway's name among replicas on one PostgreSQL store (`--replica`, docs/cluster.md), without spaces;
    /// `nil`: the host's name and the process's ID. Unused on any other store.
    public var replica: String?
    /// Where the other replicas reach this one's control API (`--replica-address http://HOST:PORT`); `nil`: the
    /// control host and port, or the host's name when the control API listens on every address.
    public var replicaAddress: String?
    /// Where each push's trace goes (docs/tracing.md); `nil` uses `InstrumentationSystem`'s tracer when one was
    /// bootstrapped (as `apnsim` does with the OpenTelemetry trait and `OTEL_*` variables), and traces nothing
    /// otherwise.
    public var tracer: (any Tracer)?

    /// PEM files: the gateway's certificate chain and key, and the CA that provider client certificates must chain to.
    public var tls: TLSFiles

    public var connection = ConnectionPolicy()
    public var validator = PushValidator.Configuration()
    public var tokenSession = ProviderTokenSession.Configuration()
    /// The time every rule reads.
    public var clock = WallClock.system
    /// Set when ``clock`` is a virtual clock the control API may move ahead (`POST /v1/clock`).
    public var virtualClock: VirtualClock?
    /// What else the control port serves (APNSimInbox's page, composer and attachment copies), and who gets the
    /// attachment copies devices send; none by default.
    public var additions: [any ControlPortAddition] = []

    public init(tls: TLSFiles) {
        self.tls = tls
    }

    /// For a gateway that tests run: every timeout that only guards against a peer too slow to go on with (a
    /// provider's TLS handshake and HTTP/2 preface, a device link's heartbeats, an install's wait for the device's
    /// answer) becomes `limit`. On a busy machine those run long, and how fast the machine is must decide no test's
    /// verdict. What tests check (Apple's rules: the idle timeout, token ages) stays as it is.
    public mutating func waitForSlowPeers(upTo limit: Duration) {
        connection.handshakeTimeout = limit
        // A link silent for three intervals is dead (DeviceLinkHandler); devices keep their own beat.
        heartbeatInterval = limit.inSeconds / 3
        installWait = limit
    }

    public struct TLSFiles: Sendable, Hashable {
        public var certificateChain: String
        public var privateKey: String
        /// Provider client certificates must be issued by this CA (PEM, may hold several certificates).
        public var providerCA: String

        public init(certificateChain: String, privateKey: String, providerCA: String) {
            self.certificateChain = certificateChain
            self.privateKey = privateKey
            self.providerCA = providerCA
        }

        /// The files `Certs/generate.sh` writes, under `directory`.
        public static func certsDirectory(_ directory: String) -> TLSFiles {
            TLSFiles(certificateChain: "\(directory)/gateway.pem", privateKey: "\(directory)/gateway-key.pem",
                     providerCA: "\(directory)/ca.pem")
        }
    }

    /// How provider connections behave at the HTTP/2 level (Apple, "Establishing a connection to APNs";
    /// SETTINGS values as provider libraries observe them, since Apple publishes none).
    public struct ConnectionPolicy: Sendable, Hashable {
        /// MAX_CONCURRENT_STREAMS once a connection is authenticated (observed 1000).
        public var maxConcurrentStreams = 1000
        /// MAX_CONCURRENT_STREAMS on a new token-auth connection until a request carries a valid token (observed 1).
        public var initialTokenStreams = 1
        /// A connection with no inbound bytes for this long gets GOAWAY `{"reason":"IdleTimeout"}` and is closed.
        /// Apple does not publish its value; one hour matches Apple's advice to PING after an
        /// hour of idleness. Any inbound frame, PING included, counts as activity.
        public var idleTimeout: Duration = .seconds(3600)
        /// A connection that has not finished its TLS handshake and HTTP/2 preface by then is closed.
        public var handshakeTimeout: Duration = .seconds(10)
        /// On shutdown, how long requests already in flight get to finish after GOAWAY `{"reason":"Shutdown"}`
        /// before their connection is closed anyway.
        public var shutdownGrace: Duration = .seconds(5)
        public var headerTableSize = 4096
        public var maxHeaderListSize = 8000
        public var initialWindowSize = 65535
        public var maxFrameSize = 16384

        public init() {}
    }
}
