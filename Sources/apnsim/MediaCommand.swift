import APNSimExtensions
import ArgumentParser
import Foundation
import Logging

/// `apnsim media`: the media server rich pushes point at, serving the fixtures in `Scenarios/media`.
struct MediaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "Serve media files for rich pushes (GET /media/NAME) and count the requests (GET /stats)."
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks one.")
    var port = 8199

    @Option(help: "The folder whose files are served.")
    var directory = "Scenarios/media"

    @Option(name: .customLong("log-level"), help: "How much to log.")
    var logLevel: Logger.Level = .warning

    func validate() throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--directory \(directory) is not a folder")
        }
    }

    func run() async throws {
        var logger = Logger(label: "apnsim.media")
        logger.logLevel = logLevel
        var server = MediaServer(directory: URL(fileURLWithPath: directory), host: host, port: port, logger: logger)
        let host = host
        server.onReady = { port in Console.say("apnsim media: serving \(directory) at http://\(host):\(port)/media/") }
        try await ProcessLife.run([server], name: "media", logger: logger)
    }
}
