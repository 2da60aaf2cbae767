import APNSimCore
import APNSimGateway
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
        let gateway = try options.makeGateway()
        let certs = options.certs
        let service = GatewayService(gateway: gateway) { endpoints in
            Console.say("""
            apnsim gateway ready
              development (sandbox) provider API  \(endpoints.url(.development))
              production provider API             \(endpoints.url(.production))
              control API                         http://\(gateway.configuration.controlHost):\(endpoints.controlPort)/v1
              inbox                               http://\(gateway.configuration.controlHost):\(endpoints.controlPort)/
              device link                         \(endpoints.devicePort.map { "\(endpoints.host):\($0) (TLS)" } ?? "off")
              CA to trust                         \(certs)/ca.pem
            """)
        }
        try await ProcessLife.run([service], name: "gateway", logger: options.logger, stopWhenStdinCloses: options.stopWhenStdinCloses)
        if let record = options.record {
            try SessionRecorder.write(gateway, worldFile: options.world, mediaURL: nil, to: record)
        }
    }
}

extension Gateway.Endpoints {
    func url(_ environment: APNsEnvironment) -> String {
        providerPorts[environment].map { "https://\(host):\($0)" } ?? "off"
    }
}
