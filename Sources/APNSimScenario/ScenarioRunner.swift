import APNSimCore
import APNSimSandbox
import Foundation
import Logging

/// Replays scenarios, each in a fresh world of its own on ports the system picks, so several run side by side.
///
/// ```swift
/// let runner = ScenarioRunner(options: .init(certs: "Certs", media: "Scenarios/media"))
/// let result = await runner.run(path: "Scenarios/extensions/braze.yaml")
/// print(result.passed)
/// ```
public struct ScenarioRunner: Sendable {
    public struct Options: Sendable {
        /// The folder `Certs/generate.sh` wrote: TLS for the world, the CA and the sandbox team's .p8.
        public var certs: String
        /// The media server's folder for scenarios that name none.
        public var media: String
        /// How long a step waits for a delivery or an install when its `expect.within` does not say.
        public var within: Duration = .seconds(10)
        /// Logs of the worlds scenarios run in; errors only unless changed (the report says what happened).
        public var logger: Logger = {
            var logger = Logger(label: "apnsim.replay")
            logger.logLevel = .error
            return logger
        }()

        public init(certs: String, media: String) {
            self.certs = certs
            self.media = media
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Loads and runs the scenario at `path`; a file that does not load is a failed result saying why.
    public func run(path: String) async -> ScenarioResult {
        let started = ContinuousClock.now
        do {
            return await run(try ScenarioLoader.load(path: path))
        } catch {
            return ScenarioResult(path: path, name: path, steps: [], error: "\(error)", duration: ContinuousClock.now - started)
        }
    }

    /// Runs a loaded scenario in a fresh embedded world.
    public func run(_ loaded: LoadedScenario) async -> ScenarioResult {
        let started = ContinuousClock.now
        var configuration = Sandbox.Configuration(world: loaded.world, certs: options.certs)
        configuration.media = Sandbox.Media(directory: loaded.mediaDirectory ?? options.media)
        configuration.useEphemeralPorts()
        let within = options.within
        let certs = options.certs
        do {
            let sandbox = try Sandbox(configuration, logger: options.logger)
            let steps = try await sandbox.withRunning { running in
                if !running.unregistered.isEmpty {
                    throw ScenarioRunError("devices \(running.unregistered.joined(separator: ", ")) did not register within 30 s")
                }
                let target = ScenarioSession.Target(
                    host: "127.0.0.1", providerPorts: running.providerPorts, control: ControlClient(baseURL: running.controlURL),
                    media: running.mediaURL.map { "\($0)/media" }, certs: certs)
                let session = ScenarioSession(target: target, loaded: loaded)
                let steps = await session.run(defaultWithin: within)
                await session.close()
                return steps
            }
            return ScenarioResult(path: loaded.path, name: loaded.scenario.name, steps: steps, error: nil,
                                  duration: ContinuousClock.now - started)
        } catch {
            return ScenarioResult(path: loaded.path, name: loaded.scenario.name, steps: [],
                                  error: "the world did not start: \(error)", duration: ContinuousClock.now - started)
        }
    }
}
