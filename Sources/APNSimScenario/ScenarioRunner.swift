import APNSimRules
import APNSimRuntime
import APNSimSandbox
import APNSimTesting
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
        /// How long a step waits for a delivery or an install when its `expect.within` does not say. A step that
        /// passes ends as soon as what it waits for is there, so this only bounds a failing one.
        public var within: Duration = .seconds(60)
        /// How long a scenario's world waits for a peer that is slow only because the machine is busy (a provider's
        /// TLS handshake, a device's connect, link heartbeats, devices registering, the control API answering): ten
        /// minutes, so a busy machine's speed decides no scenario's verdict; what a scenario checks keeps its own time.
        public var patience: Duration = .seconds(600)
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

        /// apnsim's own certificates and media fixtures, from the checkout this was built from (a Swift test's).
        public init() {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            self.init(certs: root.appendingPathComponent("Certs").path, media: root.appendingPathComponent("Scenarios/media").path)
        }
    }

    public let options: Options

    /// Replays a scenario file in a fresh world of its own, as `apnsim replay` does, and returns what happened:
    /// `result.passed`, and `result.failureText` says what was expected and what happened. For a Swift test:
    ///
    /// ```swift
    /// import APNSimScenario
    /// let result = await ScenarioRunner.replay("Scenarios/extensions/braze.yaml")
    /// #expect(result.passed, "\(result.failureText)")
    /// ```
    public static func replay(_ path: String, options: Options = Options()) async -> ScenarioResult {
        await ScenarioRunner(options: options).run(path: path)
    }

    public init(options: Options) {
        self.options = options
    }

    /// Loads and runs the scenario at `path`; a file that does not load is a failed result saying why.
    public func run(path: String) async -> ScenarioResult {
        await loading(path) { await run($0) }
    }

    /// A gateway already running (`apnsim up`, `apnsim gateway`, a docker-compose deployment) to replay against
    /// instead of a fresh world: the scenario's `world:` is not applied, so the devices and apps it names must be
    /// there. Its record is reset before each scenario (`POST /v1/reset`), so what a step expects is what it caused.
    public struct RunningGateway: Sendable {
        /// `http://HOST:PORT` of its control API.
        public var controlURL: String
        public var controlToken: String?
        /// `http://HOST:PORT` of the media server `${media}` stands for.
        public var mediaURL: String?

        public init(controlURL: String, controlToken: String? = nil, mediaURL: String? = nil) {
            self.controlURL = controlURL.hasSuffix("/") ? String(controlURL.dropLast()) : controlURL
            self.controlToken = controlToken
            self.mediaURL = mediaURL
        }
    }

    /// Loads the scenario at `path` and runs it against a running gateway.
    public func run(path: String, against gateway: RunningGateway) async -> ScenarioResult {
        await loading(path) { loaded in
            let started = ContinuousClock.now
            let control = ControlClient(baseURL: gateway.controlURL, token: gateway.controlToken, timeout: options.patience)
            do {
                let health = try await control.get("/v1/health")
                guard health.status == 200, case .object(let ports)? = health.body?["providerPorts"] else {
                    throw ScenarioRunError("\(gateway.controlURL)/v1/health answered \(health.status) \(health.body?["error"]?.string ?? "")")
                }
                let reset = try await control.post("/v1/reset")
                guard reset.status == 200 else { throw ScenarioRunError("POST /v1/reset answered \(reset.status)") }
                func environments(_ ports: [String: JSONValue]) -> [APNsEnvironment: Int] {
                    var byEnvironment: [APNsEnvironment: Int] = [:]
                    for (name, port) in ports {
                        if let environment = APNsEnvironment(rawValue: name), let port = port.integer { byEnvironment[environment] = port }
                    }
                    return byEnvironment
                }
                var managementPorts: [String: JSONValue] = [:]
                if case .object(let ports)? = health.body?["managementPorts"] { managementPorts = ports }
                let target = ScenarioSession.Target(host: URL(string: gateway.controlURL)?.host ?? "127.0.0.1", providerPorts: environments(ports),
                                                    managementPorts: environments(managementPorts),
                                                    control: control, media: gateway.mediaURL.map { "\($0)/media" }, certs: options.certs)
                return ScenarioResult(loaded, steps: await steps(of: loaded, on: target), started: started)
            } catch {
                return ScenarioResult(loaded, error: "cannot replay against \(gateway.controlURL): \(error)", started: started)
            }
        }
    }

    /// Runs a loaded scenario in a fresh embedded world.
    public func run(_ loaded: LoadedScenario) async -> ScenarioResult {
        let started = ContinuousClock.now
        var configuration = Sandbox.Configuration(world: loaded.world, certs: options.certs)
        configuration.media = Sandbox.Media(directory: loaded.mediaDirectory ?? options.media)
        configuration.useEphemeralPorts()
        configuration.virtualClock = VirtualClock()
        configuration.waitForSlowPeers(upTo: options.patience)
        configuration.registrationTimeout = options.patience
        let certs = options.certs
        let registrationTimeout = configuration.registrationTimeout
        do {
            let sandbox = try Sandbox(configuration, logger: options.logger)
            let steps = try await sandbox.withRunning { running in
                if !running.unregistered.isEmpty {
                    throw ScenarioRunError("devices \(running.unregisteredNames) did not register within \(ScenarioSession.seconds(registrationTimeout))")
                }
                let target = ScenarioSession.Target(
                    host: "127.0.0.1", providerPorts: running.providerPorts, managementPorts: running.managementPorts,
                    control: ControlClient(baseURL: running.controlURL, timeout: options.patience),
                    media: running.mediaURL.map { "\($0)/media" }, certs: certs)
                return await self.steps(of: loaded, on: target)
            }
            return ScenarioResult(loaded, steps: steps, started: started)
        } catch {
            return ScenarioResult(loaded, error: "the world did not start: \(error)", started: started)
        }
    }

    /// The scenario's steps, run one after another against `target`.
    private func steps(of loaded: LoadedScenario, on target: ScenarioSession.Target) async -> [StepResult] {
        let session = ScenarioSession(target: target, loaded: loaded)
        let steps = await session.run(defaultWithin: options.within)
        await session.close()
        return steps
    }

    /// Loads `path` and runs `body` on it; a file that does not load is a failed result saying why.
    private func loading(_ path: String, _ body: (LoadedScenario) async -> ScenarioResult) async -> ScenarioResult {
        let started = ContinuousClock.now
        do {
            return await body(try ScenarioLoader.load(path: path))
        } catch {
            return ScenarioResult(path: path, name: path, steps: [], error: "\(error)", duration: ContinuousClock.now - started)
        }
    }
}

extension ScenarioResult {
    /// The result of `loaded`: its steps, or why it could not run, timed from `started`.
    init(_ loaded: LoadedScenario, steps: [StepResult] = [], error: String? = nil, started: ContinuousClock.Instant) {
        self.init(path: loaded.path, name: loaded.scenario.name, steps: steps, error: error, duration: ContinuousClock.now - started)
    }
}
