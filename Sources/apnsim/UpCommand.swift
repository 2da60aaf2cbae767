import APNSimExtensions
import APNSimGateway
import APNSimRules
import APNSimSandbox
import ArgumentParser
import Foundation
import Synchronization

/// `apnsim up`: the sandbox. The gateway with the sandbox world, the world's devices as child processes, and
/// everything a newcomer needs to send a first push and see it displayed.
struct UpCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "up",
        abstract: "Run the apnsim sandbox (gateway and devices) and print how to send it a push."
    )

    @OptionGroup var options: GatewayOptions

    var log: LogOptions { options.log }

    @Option(help: "Folder for the devices' data, so their tokens stay the same across runs. Default: .apnsim/devices in a checkout of apnsim, else sandbox/devices in apnsim's data folder (APNSIM_HOME).")
    var data: String?

    @Option(name: .customLong("media-port"), help: "Port of the media server rich pushes download from; 0 picks one.")
    var mediaPort = 8199

    @Option(name: .customLong("media"), help: "The folder the media server serves. Default: Scenarios/media in a checkout of apnsim, else the media built into apnsim, written to its data folder.")
    var mediaDirectory: String?

    func run() async throws {
        guard let executable = Bundle.main.executableURL?.path else {
            throw ValidationError("cannot find the apnsim executable to start devices with")
        }
        let telemetry = try Telemetry.bootstrap(name: "up")  // before the gateway, which takes its tracer
        let gateway = try options.makeGatewayConfiguration()
        // The checkout's files when run in one, else the ones built into apnsim (DevelopmentFiles); the banner says which.
        let files = (world: try options.worldFile(), certs: try options.certsFolder(),
                     media: try DevelopmentFiles().find(.media, given: mediaDirectory))
        var configuration = Sandbox.Configuration(world: try WorldFile.load(path: files.world.path), certs: files.certs.path)
        configuration.gateway = gateway
        configuration.media = Sandbox.Media(directory: files.media.path, port: mediaPort)
        configuration.devices = .processes(executable: executable, arguments: options.log.forDeviceProcesses)
        configuration.dataDirectory = data ?? (files.world.origin == .checkout ? ".apnsim/devices"
            : DataHome.folder().appendingPathComponent("sandbox/devices").path)
        let sandbox = try Sandbox(configuration, store: try await options.makeStore(), logger: options.logger)
        let mediaURL = Mutex<String?>(nil)
        let service = sandbox.service { running in
            mediaURL.withLock { $0 = running.mediaURL }
            if !running.unregistered.isEmpty {
                Console.say("apnsim: not every device registered within 30 s (\(running.unregisteredNames)); GET /v1/devices shows which did")
            }
            Console.say(Self.banner(endpoints: running.endpoints, gateway: running.gateway, mediaURL: running.mediaURL, files: files))
        }
        try await ProcessLife.run([telemetry].compactMap { $0 } + [service], name: "up", logger: options.logger, stopWhenStdinCloses: options.stopWhenStdinCloses)
        if let record = options.record {
            try await SessionRecorder.write(sandbox.gateway, worldFile: files.world.path, mediaURL: mediaURL.withLock { $0 }, to: record)
        }
    }

    /// How the banner names apnsim: `swift run apnsim` from a checkout (a binary SwiftPM built), else `apnsim` (an
    /// installed binary, as in the image, where `docker exec CONTAINER apnsim send …` runs it).
    static var command: String {
        (Bundle.main.executablePath ?? "").contains("/.build/") ? "swift run apnsim" : "apnsim"
    }

    static func banner(endpoints: Gateway.Endpoints, gateway: Gateway, mediaURL: String?,
                       files: (world: DevelopmentFiles.Found, certs: DevelopmentFiles.Found, media: DevelopmentFiles.Found)) -> String {
        let certs = files.certs.path
        let inbox = "http://\(Gateway.Endpoints.reachable(gateway.configuration.controlHost)):\(endpoints.controlPort)/"
        let control = inbox + "v1"
        var lines = [
            "apnsim sandbox is up",
            "",
            "  inbox (open it in a browser)        \(inbox)",
            "  development (sandbox) provider API  \(endpoints.url(.development))",
            "  production provider API             \(endpoints.url(.production))",
            "  control API                         \(control)   (GET /deliveries: what each device displayed)",
            "  CA to trust                         \(certs)/ca.pem",
            "  token auth                          team SIMTEAM001, key SIMKEY0001, \(certs)/AuthKey_SIMKEY0001.p8",
            "  certificate auth                    \(certs)/provider-development.pem + -key.pem (and provider-production…)",
            "  media server                        \(mediaURL.map { "\($0)/media/" } ?? "not running")   (files rich pushes attach)",
            "  world                               \(files.world.described)",
            "  PKI                                 \(files.certs.described)",
            "  media files                         \(files.media.described)",
            "",
            "  devices:",
        ]
        let devices = gateway.deviceStatus.sorted { $0.descriptor.id < $1.descriptor.id }
        for device in devices {
            for registration in device.tokens {
                lines.append("    \(device.descriptor.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(registration.bundleID) "
                             + "\(registration.environment.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)) \(registration.token.hex)")
            }
        }
        let development = devices.lazy.flatMap(\.tokens).first { $0.environment == .development }
        if let development, let port = endpoints.providerPorts[.development] {
            let token = development.token.hex
            lines += [
                "",
                "  send a push and see it displayed:",
                "    \(Self.command) send --token \(token)\(port == 2197 ? "" : " --port \(port)")",
                "    curl '\(control)/deliveries?token=\(token)&wait=10'",
            ]
            if let mediaURL {
                lines += [
                    "  a Braze rich push (the app's service extension downloads and attaches the image):",
                    "    \(Self.command) send --token \(token)\(port == 2197 ? "" : " --port \(port)") --payload \\",
                    "      '{\"aps\":{\"alert\":{\"title\":\"Rich\",\"body\":\"with an image\"},\"mutable-content\":1},\"ab\":{\"att\":{\"url\":\"\(mediaURL)/media/sample.jpg\",\"type\":\"jpg\"}}}'",
                ]
            }
            lines += [
                "  or with curl (docs/sandbox.md has the JWT recipe):",
                "    curl --http2 --cacert \(certs)/ca.pem --resolve api.sandbox.push.apple.com:\(port):127.0.0.1 \\",
                "      -H \"authorization: bearer $JWT\" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \\",
                "      -d '{\"aps\":{\"alert\":\"Hello\"}}' https://api.sandbox.push.apple.com:\(port)/3/device/\(token)",
            ]
        }
        lines += ["", "Ctrl-C stops everything."]
        return lines.joined(separator: "\n")
    }
}
