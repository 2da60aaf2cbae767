import APNSimRules
import APNSimGateway
import APNSimSandbox
import ArgumentParser

/// `apnsim gateway`: serve the provider API and the control API until Ctrl-C.
struct GatewayCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Run the fake APNs gateway (provider API per environment, control API)."
    )

    @OptionGroup var options: GatewayOptions

    var log: LogOptions { options.log }

    func run() async throws {
        // Before the gateway, which takes the tracer the bootstrap installs (docs/tracing.md).
        let telemetry = try Telemetry.bootstrap(name: "gateway")
        let gateway = try await options.makeGateway()
        let certs = try options.certsFolder().path
        let service = GatewayService(gateway: gateway) { endpoints in
            Console.say("""
            apnsim gateway ready
              development (sandbox) provider API  \(endpoints.url(.development))
              production provider API             \(endpoints.url(.production))
              development channel management API  \(endpoints.managementURL(.development))
              production channel management API   \(endpoints.managementURL(.production))
              control API                         http://\(Gateway.Endpoints.reachable(gateway.configuration.controlHost)):\(endpoints.controlPort)/v1
              inbox                               http://\(Gateway.Endpoints.reachable(gateway.configuration.controlHost)):\(endpoints.controlPort)/
              device link                         \(endpoints.devicePort.map { "\(Gateway.Endpoints.reachable(endpoints.host)):\($0) (TLS)" } ?? "off")
              CA to trust                         \(certs)/ca.pem
            """)
        }
        // The exporter first: a service group stops in reverse order, so it sends the last spans after the gateway stops.
        try await ProcessLife.run([telemetry].compactMap { $0 } + [service], name: "gateway", logger: options.logger, stopWhenStdinCloses: options.stopWhenStdinCloses)
        if let record = options.record {
            try await SessionRecorder.write(gateway, worldFile: try options.worldFile().path, mediaURL: nil, to: record)
        }
    }
}

extension Gateway.Endpoints {
    func url(_ environment: APNsEnvironment) -> String {
        providerPorts[environment].map { "https://\(Self.reachable(host)):\($0)" } ?? "off"
    }

    func managementURL(_ environment: APNsEnvironment) -> String {
        managementPorts[environment].map { "https://\(Self.reachable(host)):\($0)" } ?? "off"
    }

    /// How a banner names an address to connect to: a listener on every address (`0.0.0.0`, `::`, as in a container)
    /// is reached on this machine at 127.0.0.1, which is what a user copies into curl.
    static func reachable(_ host: String) -> String {
        host == "0.0.0.0" || host == "::" || host == "[::]" ? "127.0.0.1" : host
    }
}
