import APNSimCore
import APNSimGateway
import APNSimStore
import ArgumentParser
import Logging

/// The options `apnsim gateway` and `apnsim up` share, and how they become a running gateway.
struct GatewayOptions: ParsableArguments {
    @Option(help: "The world file: teams, keys, apps, tokens.")
    var world = "Scenarios/sandbox.yaml"

    @Option(help: "The folder Certs/generate.sh wrote (gateway.pem, gateway-key.pem, ca.pem).")
    var certs = "Certs"

    @Option(help: "Address the provider endpoints bind to.")
    var host = "127.0.0.1"

    @Option(name: .customLong("development-port"), help: "Provider API port of the development (sandbox) environment; 0 picks one.")
    var developmentPort = 2197

    @Option(name: .customLong("production-port"), help: "Provider API port of the production environment; 0 picks one.")
    var productionPort = 2198

    @Option(name: .customLong("control-port"), help: "Control API port (HTTP, JSON under /v1).")
    var controlPort = 8197

    @Option(name: .customLong("control-host"), help: "Address the control API binds to.")
    var controlHost = "127.0.0.1"

    @Option(name: .customLong("device-port"), help: "Device link port (simulated devices connect here, TLS); 0 picks one.")
    var devicePort = 5223

    @Option(name: .customLong("token-secret"), help: "Secret device tokens are derived from; keep it to keep tokens across gateway restarts.")
    var tokenSecret = TokenIssuer.defaultSecret

    @Option(name: .customLong("uninstall-delay"), help: "Seconds after an app is removed before its token answers 410 Unregistered.")
    var uninstallDelay = 0.0

    @Option(help: "Keep the record in this SQLite file instead of memory.")
    var store: String?

    @Option(name: .customLong("idle-timeout"), help: "Seconds without inbound bytes before a provider connection gets GOAWAY IdleTimeout.")
    var idleTimeout = 3600

    @Option(name: .customLong("max-streams"), help: "MAX_CONCURRENT_STREAMS once a connection is authenticated.")
    var maxStreams = 1000

    @Flag(name: .customLong("accept-unknown-tokens"), help: "Accept pushes to tokens the world does not know, instead of BadDeviceToken.")
    var acceptUnknownTokens = false

    @Flag(name: .customLong("allow-background-priority-10"), help: "Accept background pushes with apns-priority 10 instead of BadPriority.")
    var allowBackgroundPriority10 = false

    @Flag(name: .customLong("accept-malformed-payloads"), help: "Accept bodies that are not JSON objects instead of PayloadEmpty.")
    var acceptMalformedPayloads = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "warning"

    var logger: Logger {
        var logger = Logger(label: "apnsim")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
        return logger
    }

    func makeGateway() throws -> Gateway {
        let loaded = try WorldFile.load(path: world)
        var configuration = GatewayConfiguration(tls: .certsDirectory(certs))
        configuration.host = host
        configuration.ports = [.development: developmentPort, .production: productionPort]
        configuration.controlPort = controlPort
        configuration.controlHost = controlHost
        configuration.devicePort = devicePort
        configuration.tokenSecret = tokenSecret
        configuration.uninstallDelay = uninstallDelay
        configuration.connection.idleTimeout = .seconds(idleTimeout)
        configuration.connection.maxConcurrentStreams = maxStreams
        configuration.validator.acceptUnknownDeviceTokens = acceptUnknownTokens
        configuration.validator.rejectBackgroundPriority10 = !allowBackgroundPriority10
        configuration.validator.rejectMalformedPayload = !acceptMalformedPayloads
        return try Gateway(configuration: configuration, world: WorldRegistry(loaded), store: try Store(path: store), logger: logger)
    }
}
