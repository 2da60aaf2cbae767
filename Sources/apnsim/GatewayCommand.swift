import APNSimCore
import APNSimGateway
import APNSimStore
import ArgumentParser
import Logging
import ServiceLifecycle
import UnixSignals

/// `apnsim gateway`: serve the provider API and the control API until Ctrl-C.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run the fake APNs gateway (provider API per environment, control API)."
    )

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

    @Option(help: "Keep the record in this SQLite file instead of memory.")
    var store: String?

    @Option(name: .customLong("idle-timeout"), help: "Seconds without inbound bytes before a provider connection gets GOAWAY IdleTimeout.")
    var idleTimeout = 3600

    @Option(name: .customLong("max-streams"), help: "MAX_CONCURRENT_STREAMS once a connection is authenticated.")
    var maxStreams = 1000

    @Flag(name: .customLong("accept-unknown-tokens"), help: "Accept pushes to tokens the world does not know, instead of BadDeviceToken.")
    var acceptUnknownTokens = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func run() async throws {
        var logger = Logger(label: "apnsim")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let loaded = try WorldFile.load(path: world)
        var configuration = GatewayConfiguration(tls: .certsDirectory(certs))
        configuration.host = host
        configuration.ports = [.development: developmentPort, .production: productionPort]
        configuration.controlPort = controlPort
        configuration.controlHost = controlHost
        configuration.connection.idleTimeout = .seconds(idleTimeout)
        configuration.connection.maxConcurrentStreams = maxStreams
        configuration.validator.acceptUnknownDeviceTokens = acceptUnknownTokens
        let gateway = try Gateway(configuration: configuration, world: WorldRegistry(loaded),
                                  store: try Store(path: store), logger: logger)
        let announcer = ReadyAnnouncer(gateway: gateway, certs: certs)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: announcer, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        try await group.run()
    }
}

/// Runs the gateway and prints where it listens once it does.
private struct ReadyAnnouncer: Service {
    let gateway: Gateway
    let certs: String

    func run() async throws {
        let certs = self.certs
        try await gateway.run { endpoints in
            let development = endpoints.providerPorts[.development].map { "https://\(endpoints.host):\($0)" } ?? "off"
            let production = endpoints.providerPorts[.production].map { "https://\(endpoints.host):\($0)" } ?? "off"
            print("""
            apnsim gateway ready
              development (sandbox) provider API  \(development)
              production provider API             \(production)
              control API                         http://127.0.0.1:\(endpoints.controlPort)/v1/health
              CA to trust                         \(certs)/ca.pem
              token auth                          team SIMTEAM001, key SIMKEY0001, \(certs)/AuthKey_SIMKEY0001.p8
            Ctrl-C stops it.
            """)
        }
    }
}
