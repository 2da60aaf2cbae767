import APNSimRules
import APNSimGateway
import APNSimInbox
import APNSimSandbox
import APNSimStore
import ArgumentParser
import Foundation
import Logging

/// The options `apnsim gateway` and `apnsim up` share, and how they become a running gateway.
struct GatewayOptions: ParsableArguments {
    @Option(help: "The world file: teams, keys, apps, tokens. Default: Scenarios/sandbox.yaml in a checkout of apnsim, else the sandbox world built into apnsim, written to its data folder (APNSIM_HOME; apnsim certs says where). Environment: APNSIM_WORLD.")
    var world: String? = EnvironmentVariables.value("APNSIM_WORLD")

    @Option(help: "The folder Certs/generate.sh wrote (gateway.pem, gateway-key.pem, ca.pem). Default: Certs in a checkout of apnsim, else the development PKI built into apnsim, written to its data folder (apnsim certs says where). Environment: APNSIM_CERTS.")
    var certs: String? = EnvironmentVariables.value("APNSIM_CERTS")

    @Option(help: "Address the provider endpoints and the device link bind to. Environment: APNSIM_HOST.")
    var host = EnvironmentVariables.text("APNSIM_HOST", otherwise: "127.0.0.1")

    @Option(name: .customLong("development-port"), help: "Provider API port of the development (sandbox) environment; 0 picks one. Environment: APNSIM_DEVELOPMENT_PORT.")
    var developmentPort = EnvironmentVariables.port("APNSIM_DEVELOPMENT_PORT", option: "--development-port", otherwise: 2197)

    @Option(name: .customLong("production-port"), help: "Provider API port of the production environment; 0 picks one. Environment: APNSIM_PRODUCTION_PORT.")
    var productionPort = EnvironmentVariables.port("APNSIM_PRODUCTION_PORT", option: "--production-port", otherwise: 2198)

    @Option(name: .customLong("development-management-port"),
            help: "Channel management API port of the development environment (Apple's is 2195); 0 picks one. Default: 2195, or 0 when --development-port is 0. Environment: APNSIM_DEVELOPMENT_MANAGEMENT_PORT.")
    var developmentManagementPort: Int? = EnvironmentVariables.optionalPort("APNSIM_DEVELOPMENT_MANAGEMENT_PORT", option: "--development-management-port")

    @Option(name: .customLong("production-management-port"),
            help: "Channel management API port of the production environment (Apple's is 2196); 0 picks one. Default: 2196, or 0 when --production-port is 0. Environment: APNSIM_PRODUCTION_MANAGEMENT_PORT.")
    var productionManagementPort: Int? = EnvironmentVariables.optionalPort("APNSIM_PRODUCTION_MANAGEMENT_PORT", option: "--production-management-port")

    @Option(name: .customLong("control-port"), help: "Control API port (HTTP, JSON under /v1). Environment: APNSIM_CONTROL_PORT.")
    var controlPort = EnvironmentVariables.port("APNSIM_CONTROL_PORT", option: "--control-port", otherwise: 8197)

    @Option(name: .customLong("control-host"), help: "Address the control API binds to. Environment: APNSIM_CONTROL_HOST.")
    var controlHost = EnvironmentVariables.text("APNSIM_CONTROL_HOST", otherwise: "127.0.0.1")

    @Option(name: .customLong("control-token"), help: "Require Authorization: Bearer TOKEN on every control-API request; needed to bind --control-host beyond loopback. Visible to every ps: prefer APNSIM_CONTROL_TOKEN or --control-token-file.")
    var controlToken: String?

    @Option(name: .customLong("control-token-file"), help: "Read the control token from this file (a mounted secret; one line). Environment: APNSIM_CONTROL_TOKEN_FILE.")
    var controlTokenFile: String? = EnvironmentVariables.value("APNSIM_CONTROL_TOKEN_FILE")

    @Option(name: .customLong("device-port"), help: "Device link port (simulated devices connect here, TLS); 0 picks one. Environment: APNSIM_DEVICE_PORT.")
    var devicePort = EnvironmentVariables.port("APNSIM_DEVICE_PORT", option: "--device-port", otherwise: 5223)

    @Option(name: .customLong("token-secret"), help: "Secret device tokens are derived from; keep it to keep tokens across gateway restarts.")
    var tokenSecret = TokenIssuer.defaultSecret

    @Option(name: .customLong("uninstall-delay"), help: "When a removed app's token starts answering 410 Unregistered: learn (once a push reaches its device, which tells APNs; until then pushes are answered 200 and discarded, as Apple's APNs does), or a number of seconds after the removal (0: at once). Environment: APNSIM_UNINSTALL_DELAY.")
    var uninstallDelay = EnvironmentVariables.value("APNSIM_UNINSTALL_DELAY") ?? UninstallDelay.untilDeviceTells.description

    @Option(name: .customLong("environment-key-reason"), help: "The reason a provider token signed by a key of the other environment is refused with: BadEnvironmentKeyIdInToken (Apple's table) or BadEnvironmentKeyInToken (what clients report the wire saying). Environment: APNSIM_ENVIRONMENT_KEY_REASON.")
    var environmentKeyReason = EnvironmentVariables.value("APNSIM_ENVIRONMENT_KEY_REASON") ?? RejectionReason.badEnvironmentKeyIdInToken.rawValue

    @Option(help: "Keep the record in this SQLite file instead of memory, or in PostgreSQL shared with other replicas: postgres://USER@HOST[:PORT]/DATABASE (docs/cluster.md). Environment: APNSIM_STORE, which alone may carry a password.")
    var store: String? = EnvironmentVariables.value("APNSIM_STORE")

    @Option(name: .customLong("store-password-file"), help: "With a postgres:// store: a file whose first line is the password (else PGPASSFILE or ~/.pgpass). Environment: APNSIM_STORE_PASSWORD_FILE.")
    var storePasswordFile: String? = EnvironmentVariables.value("APNSIM_STORE_PASSWORD_FILE")

    @Option(help: "With a postgres:// store: this gateway's name among the replicas sharing it, without spaces (default: the host's name and the process ID). Environment: APNSIM_REPLICA.")
    var replica: String? = EnvironmentVariables.value("APNSIM_REPLICA")

    @Option(name: .customLong("replica-address"), help: "With a postgres:// store: where the other replicas reach this one's control API, http://HOST:PORT (default: the control host and port, or the host's name when it listens on every address). Environment: APNSIM_REPLICA_ADDRESS.")
    var replicaAddress: String? = EnvironmentVariables.value("APNSIM_REPLICA_ADDRESS")

    @Option(name: .customLong("idle-timeout"), help: "Seconds without inbound bytes before a provider connection gets GOAWAY IdleTimeout.")
    var idleTimeout = 3600

    @Option(name: .customLong("handshake-timeout"),
            help: "Seconds a provider connection has to finish its TLS handshake and HTTP/2 preface before it is closed.")
    var handshakeTimeout = 10.0

    @Option(name: .customLong("shutdown-grace"),
            help: "Seconds the requests in flight get to finish after GOAWAY Shutdown when the gateway stops, before their connections close.")
    var shutdownGrace = 5.0

    @Option(name: .customLong("heartbeat-interval"),
            help: "Seconds between the heartbeats a device link carries; a link silent for three intervals is closed as dead.")
    var heartbeatInterval = 15.0

    @Option(name: .customLong("device-link-buffer"),
            help: "MiB written to one device link and left unread before the link ends (a device that stopped reading); what was not acknowledged goes again on its next link.")
    var deviceLinkBuffer = 64

    @Option(name: .customLong("install-wait"),
            help: "Seconds POST /v1/devices/{id}/apps waits for the device's answer when the request gives no ?wait= (up to 600).")
    var installWait = 120.0

    @Option(name: .customLong("max-streams"), help: "MAX_CONCURRENT_STREAMS once a connection is authenticated.")
    var maxStreams = 1000

    @Option(name: .customLong("initial-token-streams"), help: "MAX_CONCURRENT_STREAMS of a token-auth connection until a request carries a valid token (Apple: 1).")
    var initialTokenStreams = 1

    @Option(name: .customLong("max-sends"), help: "Provider requests the record keeps, newest first; 0 keeps all.")
    var maxSends = 100_000

    @Option(name: .customLong("max-deliveries"), help: "Deliveries the record keeps, newest first; 0 keeps all.")
    var maxDeliveries = 100_000

    @Option(name: .customLong("max-connections"), help: "Records of provider connections refused or closed the record keeps, newest first; 0 keeps all.")
    var maxConnections = 10_000

    @Option(name: .customLong("max-record-age"), help: "Seconds a record (send, delivery, connection) is kept; 0 keeps them whatever their age.")
    var maxRecordAge = 0.0

    @Flag(name: .customLong("answer-before-commit"), help: "With --store: answer 200 without waiting for the store to commit the push (faster; a crash can lose the last ones).")
    var answerBeforeCommit = false

    @Flag(name: .customLong("accept-unknown-tokens"), help: "Accept pushes to tokens the world does not know, instead of BadDeviceToken.")
    var acceptUnknownTokens = false

    @Flag(name: .customLong("allow-background-priority-10"), help: "Accept background pushes with apns-priority 10 instead of BadPriority.")
    var allowBackgroundPriority10 = false

    @Flag(name: .customLong("accept-malformed-payloads"), help: "Accept bodies that are not JSON objects instead of PayloadEmpty.")
    var acceptMalformedPayloads = false

    @Flag(name: .customLong("accept-channels-without-push-type"),
          help: "Create a broadcast channel whose body has no push-type (as LiveActivity) instead of answering MissingPushType.")
    var acceptChannelsWithoutPushType = false

    @Option(help: "When the session ends, write what providers sent and what devices displayed as a scenario to this YAML file (apnsim replay runs it).")
    var record: String?

    @OptionGroup var log: LogOptions

    @Flag(name: .customLong("stop-when-stdin-closes"), help: "Stop when standard input ends, so the process ends with the one that started it however that ends (a test runner's crash included).")
    var stopWhenStdinCloses = false

    func validate() throws {
        do {
            if case .postgres(let address) = try StoreAddress(store), address.password != nil, store != EnvironmentVariables.value("APNSIM_STORE") {
                throw ValidationError("--store names a password, which every user of this machine can read on a command line (ps): "
                                      + "give the address in APNSIM_STORE, or the password in --store-password-file or PGPASSFILE")
            }
        } catch let error as StoreAddressError {
            throw ValidationError(error.description)
        }
        let streams = 1...Int(Int32.max)
        guard streams.contains(maxStreams) else { throw ValidationError("--max-streams takes 1 to \(Int32.max); got \(maxStreams)") }
        guard streams.contains(initialTokenStreams) else {
            throw ValidationError("--initial-token-streams takes 1 to \(Int32.max); got \(initialTokenStreams)")
        }
        guard maxSends >= 0, maxDeliveries >= 0, maxConnections >= 0 else {
            throw ValidationError("--max-sends, --max-deliveries and --max-connections take 0 (keep all) or more")
        }
        guard maxRecordAge.isFinite, maxRecordAge >= 0 else {
            throw ValidationError("--max-record-age takes a number of seconds, 0 (no limit) or more; got \(maxRecordAge)")
        }
        if let replica, replica.isEmpty || replica.contains(where: \.isWhitespace) {
            throw ValidationError("--replica takes a name without spaces, one for each replica on the store; got '\(replica)'")
        }
        if let replicaAddress, !(replicaAddress.hasPrefix("http://") || replicaAddress.hasPrefix("https://")) || URL(string: replicaAddress)?.host == nil {
            throw ValidationError("--replica-address takes http://HOST:PORT, where the other replicas reach this control API; got '\(replicaAddress)'")
        }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout takes a positive number of seconds; got \(idleTimeout)") }
        for (name, seconds) in [("--handshake-timeout", handshakeTimeout), ("--heartbeat-interval", heartbeatInterval)]
        where !(seconds.isFinite && seconds > 0 && seconds <= Self.longestTimeout) {
            throw ValidationError("\(name) takes more than 0 and up to \(Int(Self.longestTimeout)) seconds; got \(seconds)")
        }
        guard (1...4096).contains(deviceLinkBuffer) else {
            throw ValidationError("--device-link-buffer takes 1 to 4096 MiB; got \(deviceLinkBuffer)")
        }
        guard installWait.isFinite, installWait > 0, installWait <= 600 else {
            throw ValidationError("--install-wait takes more than 0 and up to 600 seconds; got \(installWait)")
        }
        guard shutdownGrace.isFinite, (0...Self.longestTimeout).contains(shutdownGrace) else {
            throw ValidationError("--shutdown-grace takes 0 to \(Int(Self.longestTimeout)) seconds; got \(shutdownGrace)")
        }
        guard Self.environmentKeyReasons.contains(where: { $0.rawValue == environmentKeyReason }) else {
            throw ValidationError("--environment-key-reason takes "
                                  + Self.environmentKeyReasons.map(\.rawValue).joined(separator: " or ") + "; got \(environmentKeyReason)")
        }
        guard UninstallDelay(argument: uninstallDelay) != nil else {
            throw ValidationError("--uninstall-delay takes learn or a number of seconds, 0 or more; got \(uninstallDelay)")
        }
        for (name, port) in [("--development-port", developmentPort), ("--production-port", productionPort),
                             ("--development-management-port", developmentManagementPort ?? 0),
                             ("--production-management-port", productionManagementPort ?? 0),
                             ("--control-port", controlPort), ("--device-port", devicePort)] where !(0...65535).contains(port) {
            throw ValidationError("\(name) takes 0 to 65535; got \(port)")
        }
    }

    /// The spellings of the environment-key refusal a gateway may answer with (``ProviderTokenSession/Configuration/environmentKeyReason``).
    static let environmentKeyReasons: [RejectionReason] = [.badEnvironmentKeyIdInToken, .badEnvironmentKeyInToken]

    /// The longest a timeout of seconds may be: a day, so a mistyped one is an error rather than a hang.
    static let longestTimeout = 86_400.0

    var logger: Logger { log.logger("apnsim") }

    /// The control token: `--control-token`, else the file `--control-token-file` names, else `APNSIM_CONTROL_TOKEN`.
    func resolvedControlToken() throws(ControlTokenError) -> String? {
        if let controlToken {
            guard controlTokenFile == nil else { throw ControlTokenError("give the control token once: --control-token or --control-token-file, not both") }
            return controlToken
        }
        if let path = controlTokenFile {
            let source = EnvironmentVariables.value("APNSIM_CONTROL_TOKEN_FILE") == path ? "APNSIM_CONTROL_TOKEN_FILE" : "--control-token-file"
            guard FileManager.default.fileExists(atPath: path) else { throw ControlTokenError("\(source) names \(path), which does not exist") }
            guard let text = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }) else {
                throw ControlTokenError("\(source) names \(path), which this user cannot read")
            }
            // A secret file ends with a newline more often than not; the token is its first line.
            let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !token.isEmpty else { throw ControlTokenError("\(source) names \(path), which is empty: write the token in it") }
            return token
        }
        return EnvironmentVariables.value("APNSIM_CONTROL_TOKEN")
    }

    /// The gateway alone (`apnsim gateway`), with the inbox on its control port; its composer is off, as it needs a
    /// provider key to sign with, which `apnsim up` gives it.
    func makeGateway() async throws -> Gateway {
        var configuration = try makeGatewayConfiguration()
        configuration.additions = [try Inbox()]
        return try Gateway(configuration: configuration, world: WorldRegistry(try loadWorld()), store: try await makeStore(), logger: logger)
    }

    /// The world file: `--world`, else the default (a checkout's, or the one built in).
    func worldFile() throws -> DevelopmentFiles.Found {
        try DevelopmentFiles().find(.world, given: world)
    }

    /// The PKI's folder: `--certs`, else the default.
    func certsFolder() throws -> DevelopmentFiles.Found {
        try DevelopmentFiles().find(.certs, given: certs)
    }

    func loadWorld() throws -> World {
        try WorldFile.load(path: try worldFile().path)
    }

    func makeStore() async throws -> any Store {
        var address = try StoreAddress(store)
        if case .postgres(let postgres) = address { address = .postgres(try postgres.findingPassword(passwordFile: storePasswordFile)) }
        return try await address.open(logger: logger)
    }

    func makeGatewayConfiguration() throws -> GatewayConfiguration {
        var configuration = GatewayConfiguration(tls: .certsDirectory(try certsFolder().path))
        configuration.host = host
        configuration.ports = [.development: developmentPort, .production: productionPort]
        // A gateway whose provider port is picked gets its management port picked too, so gateways run side by side.
        configuration.managementPorts = [
            .development: developmentManagementPort ?? (developmentPort == 0 ? 0 : 2195),
            .production: productionManagementPort ?? (productionPort == 0 ? 0 : 2196),
        ]
        configuration.controlPort = controlPort
        configuration.controlHost = controlHost
        configuration.controlToken = try resolvedControlToken()
        configuration.devicePort = devicePort
        configuration.tokenSecret = tokenSecret
        configuration.uninstallDelay = UninstallDelay(argument: uninstallDelay) ?? .untilDeviceTells
        configuration.tokenSession.environmentKeyReason = Self.environmentKeyReasons.first { $0.rawValue == environmentKeyReason }
            ?? .badEnvironmentKeyIdInToken
        configuration.connection.idleTimeout = .seconds(idleTimeout)
        configuration.connection.handshakeTimeout = .milliseconds(Int64(handshakeTimeout * 1000))
        configuration.connection.shutdownGrace = .milliseconds(Int64(shutdownGrace * 1000))
        configuration.heartbeatInterval = heartbeatInterval
        configuration.deviceLinkBufferLimit = deviceLinkBuffer << 20
        configuration.installWait = .milliseconds(Int64(installWait * 1000))
        configuration.connection.maxConcurrentStreams = maxStreams
        configuration.connection.initialTokenStreams = initialTokenStreams
        configuration.durableAnswers = !answerBeforeCommit
        configuration.replica = replica
        configuration.replicaAddress = replicaAddress
        configuration.records.sends = maxSends > 0 ? maxSends : nil
        configuration.records.deliveries = maxDeliveries > 0 ? maxDeliveries : nil
        configuration.records.connections = maxConnections > 0 ? maxConnections : nil
        configuration.records.maximumAge = maxRecordAge > 0 ? maxRecordAge : nil
        configuration.validator.acceptUnknownDeviceTokens = acceptUnknownTokens
        configuration.validator.rejectBackgroundPriority10 = !allowBackgroundPriority10
        configuration.validator.rejectMalformedPayload = !acceptMalformedPayloads
        configuration.validator.requireChannelPushType = !acceptChannelsWithoutPushType
        return configuration
    }
}

/// A control token that cannot be had: one sentence naming where it was to come from.
struct ControlTokenError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
