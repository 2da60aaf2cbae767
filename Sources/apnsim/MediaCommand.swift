import APNSimExtensions
import APNSimSandbox
import ArgumentParser
import Foundation
import Logging

/// `apnsim media`: the media server rich pushes point at, serving the fixtures in `Scenarios/media`.
struct MediaCommand: AsyncParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Serve media files for rich pushes (GET /media/NAME) and count the requests (GET /stats)."
    )

    @Option(help: "Address to bind. Environment: APNSIM_HOST.")
    var host = EnvironmentVariables.text("APNSIM_HOST", otherwise: "127.0.0.1")

    @Option(help: "Port to listen on; 0 picks one. Environment: APNSIM_MEDIA_PORT.")
    var port = EnvironmentVariables.port("APNSIM_MEDIA_PORT", option: "--port", otherwise: 8199)

    @Option(help: "The folder whose files are served. Default: Scenarios/media in a checkout of apnsim, else the media built into apnsim, written to its data folder.")
    var directory: String?

    @OptionGroup var log: LogOptions

    func validate() throws {
        var isDirectory: ObjCBool = false
        if let directory, !(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw ValidationError("--directory \(directory) is not a folder")
        }
    }

    func run() async throws {
        let logger = log.logger("apnsim.media")
        let directory = try DevelopmentFiles().find(.media, given: directory).path
        var server = MediaServer(directory: URL(fileURLWithPath: directory), host: host, port: port, logger: logger)
        let host = host
        server.onReady = { port in Console.say("apnsim media: serving \(directory) at http://\(host):\(port)/media/") }
        try await ProcessLife.run([server], name: "media", logger: logger)
    }
}
