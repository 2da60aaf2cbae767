import APNSimScenario
import APNSimSandbox
import ArgumentParser
import Foundation
import Logging

/// `apnsim replay`: runs scenario files, each in a fresh world of its own, and reports like a test runner.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay scenario files (or folders of them), each in a fresh world, and report each step.",
        discussion: "Exits 1 when any scenario fails. docs/scenarios.md describes the file format."
    )

    @Argument(help: "Scenario files, or folders searched for them (YAML files with steps:).")
    var paths: [String]

    @Option(help: "Also write the results as JUnit XML to this file.")
    var junit: String?

    @Option(help: "How many scenarios run side by side.")
    var jobs = 1

    @Option(name: .customLong("repeat"), help: "Run each scenario this many times (to show a scenario passes every time).")
    var repetitions = 1

    @Option(help: "The folder Certs/generate.sh wrote (TLS, the CA, the sandbox team's .p8). Default: Certs in a checkout of apnsim, else the development PKI built into apnsim, written to its data folder.")
    var certs: String?

    @Option(help: "The folder the media server serves, for scenarios that name none. Default: Scenarios/media in a checkout of apnsim, else the media built into apnsim.")
    var media: String?

    @Option(help: "Seconds a step waits for a delivery or an install unless its expect.within says.")
    var within = 60.0

    @Option(help: "Replay against this running gateway's control API (http://HOST:PORT) instead of a fresh world per scenario; its record is reset before each scenario.")
    var gateway: String?

    @Option(name: .customLong("control-token"), help: "With --gateway: the control API's token.")
    var controlToken: String?

    @Option(name: .customLong("media-url"), help: "With --gateway: the media server ${media} stands for (http://HOST:PORT).")
    var mediaURL = "http://127.0.0.1:8199"

    @Option(name: .customLong("log-level"), help: "How much the worlds replayed log.")
    var logLevel: Logger.Level = .error

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs takes 1 to 64; got \(jobs)") }
        guard (1...10_000).contains(repetitions) else { throw ValidationError("--repeat takes 1 to 10000; got \(repetitions)") }
        guard within.isFinite, (0.1...600).contains(within) else { throw ValidationError("--within takes 0.1 to 600 seconds; got \(within)") }
        if let gateway, URL(string: gateway)?.host == nil { throw ValidationError("--gateway takes the control API's URL, such as http://127.0.0.1:8197; got \(gateway)") }
        if gateway != nil, jobs > 1 { throw ValidationError("--gateway replays one scenario at a time (each resets the gateway's record); leave out --jobs") }
    }

    func run() async throws {
        let files: [String]
        do {
            files = try ScenarioLoader.find(paths)
        } catch {
            Console.error("apnsim replay: \(error)")
            throw ExitCode(1)
        }
        guard !files.isEmpty else {
            Console.error("apnsim replay: no scenario files (YAML with steps:) in \(paths.joined(separator: ", "))")
            throw ExitCode(1)
        }
        let defaults = DevelopmentFiles()
        var options = ScenarioRunner.Options(certs: try defaults.find(.certs, given: certs).path, media: try defaults.find(.media, given: media).path)
        options.within = .milliseconds(Int64(within * 1000))
        options.logger.logLevel = logLevel
        let runner = ScenarioRunner(options: options)
        let queue = Array(repeating: files, count: repetitions).flatMap { $0 }
        let started = ContinuousClock.now
        let remote = gateway.map { ScenarioRunner.RunningGateway(controlURL: $0, controlToken: controlToken, mediaURL: mediaURL) }
        let results = await Self.run(queue, jobs: jobs) { path in
            if let remote { return await runner.run(path: path, against: remote) }
            return await runner.run(path: path)
        }
        let duration = ContinuousClock.now - started
        Console.say(ScenarioReport.summary(results, duration: duration))
        if let junit {
            do {
                try ScenarioReport.junit(results, duration: duration).write(toFile: junit, atomically: true, encoding: .utf8)
            } catch {
                Console.error("apnsim replay: cannot write the JUnit report to \(junit): \(error.localizedDescription)")
                throw ExitCode(1)
            }
        }
        if results.contains(where: { !$0.passed }) { throw ExitCode(1) }
    }

    /// Runs `files` with at most `jobs` at once, printing each result as it finishes, preceded by its place in
    /// the queue (the progress of a long replay).
    static func run(_ files: [String], jobs: Int, replay: @escaping @Sendable (String) async -> ScenarioResult) async -> [ScenarioResult] {
        await withTaskGroup(of: (Int, ScenarioResult).self) { tasks in
            var next = 0
            var done = 0
            var results = [ScenarioResult?](repeating: nil, count: files.count)
            func start() {
                guard next < files.count else { return }
                let index = next
                next += 1
                tasks.addTask { (index, await replay(files[index])) }
            }
            for _ in 0..<min(jobs, files.count) { start() }
            while let (index, result) = await tasks.next() {
                done += 1
                results[index] = result
                Console.say("[\(done)/\(files.count)] " + ScenarioReport.text(result))
                start()
            }
            return results.compactMap { $0 }
        }
    }
}
