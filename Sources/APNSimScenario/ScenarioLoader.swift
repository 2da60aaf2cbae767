import APNSimRules
import APNSimSandbox
import Foundation
import Yams

/// A scenario read and checked, with the world it runs in already built.
public struct LoadedScenario: Sendable {
    public var path: String
    public var scenario: Scenario
    public var world: World
    /// The folder the scenario's relative paths start from.
    public var directory: URL
    /// The media folder it names, if it names one.
    public var mediaDirectory: String?
    /// The line each step starts on.
    public var stepLines: [Int]
}

/// Finds and reads scenario files. Every mistake, in the scenario or in a world file it extends, is one sentence
/// naming the file, line and key.
public enum ScenarioLoader {
    /// Reads the scenario at `path` and builds its world.
    public static func load(path: String) throws -> LoadedScenario {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw YAMLFileError(file: path, line: nil, key: nil, "cannot read the scenario (\(error.localizedDescription))")
        }
        let scenario = try YAMLDocument.decode(Scenario.self, from: text, path: path, vocabulary: Scenario.vocabulary)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var world = World()
        if let extends = scenario.world.extends {
            world = try WorldFile.load(path: resolve(extends, in: directory))
        }
        do {
            try scenario.world.file.apply(to: &world, path: path, directory: directory, readFile: WorldFile.readFromDisk)
        } catch let error as WorldFileError {
            throw YAMLFileError(file: path, line: nil, key: "world", error.description.replacingOccurrences(of: "\(path): ", with: ""))
        }
        try check(scenario, world: world, path: path, text: text)
        return LoadedScenario(path: path, scenario: scenario, world: world, directory: directory,
                              mediaDirectory: scenario.media.map { resolve($0, in: directory) }, stepLines: stepLines(text))
    }

    /// The scenario files under `paths`: files as given, folders searched for `.yaml` files whose top level has
    /// `steps:` (world files beside them are left out), sorted by path.
    public static func find(_ paths: [String]) throws -> [String] {
        var found: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw YAMLFileError(file: path, line: nil, key: nil, "no such file or folder")
            }
            guard isFolder.boolValue else {
                found.append(path)
                continue
            }
            let enumerator = FileManager.default.enumerator(atPath: path)
            var inFolder: [String] = []
            while let relative = enumerator?.nextObject() as? String {
                guard relative.hasSuffix(".yaml") || relative.hasSuffix(".yml") else { continue }
                let file = URL(fileURLWithPath: path).appendingPathComponent(relative).path
                if isScenario(file) { inFolder.append((path as NSString).appendingPathComponent(relative)) }
            }
            found += inFolder.sorted()
        }
        return found
    }

    /// Whether the file's top level is a mapping with `steps`.
    static func isScenario(_ file: String) -> Bool {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), let node = try? Yams.compose(yaml: text) else {
            return true  // a file that does not parse is reported when it is loaded
        }
        return node.mapping?["steps"] != nil
    }

    private static func resolve(_ path: String, in directory: URL) -> String {
        path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
    }

    private static func stepLines(_ text: String) -> [Int] {
        guard let node = try? Yams.compose(yaml: text), let steps = node.mapping?["steps"]?.sequence else { return [] }
        return steps.map { $0.mark?.line ?? 0 }
    }

    /// What decoding cannot see: a step that does nothing and checks nothing, a send without a target, a device
    /// or app the world does not have.
    private static func check(_ scenario: Scenario, world: World, path: String, text: String) throws {
        let lines = stepLines(text)
        // A fleet (a device with `count`) is known by its ID and by each of its devices' (`ID-1` …).
        let devices = Dictionary(world.devices.flatMap { spec in Set([spec.id] + spec.deviceIDs).map { ($0, spec) } }, uniquingKeysWith: { $1 })
        /// Whether a step before `index` installs `app` on `device`.
        func installedEarlier(_ app: String, on device: String, before index: Int) -> Bool {
            scenario.steps.prefix(index).contains { $0.device?.action == .install && $0.device?.id == device && $0.device?.app == app }
        }
        for (index, step) in scenario.steps.enumerated() {
            func fail(_ key: String, _ message: String) -> YAMLFileError {
                YAMLFileError(file: path, line: lines.indices.contains(index) ? lines[index] : nil, key: "steps[\(index)].\(key)", message)
            }
            let actions = [step.send != nil, step.push != nil, step.device != nil, step.wait != nil, step.fault != nil, step.advance != nil,
                           step.channel != nil].filter { $0 }.count
            if actions > 1 { throw fail("send", "a step does one of send, push, device, wait, advance, fault or channel; split it into several steps") }
            if actions == 0 && step.expect == nil {
                throw fail("expect", "the step does nothing; give it send, push, device, wait, advance, fault, channel or expect")
            }
            if let channel = step.channel, (channel.create == nil) == (channel.delete == nil) {
                throw fail("channel", "a channel step says create: NAME or delete: NAME (one of them)")
            }
            if let policy = step.channel?.storagePolicy, policy != 0 && policy != 1 {
                throw fail("channel.storagePolicy", "storagePolicy is 0 (no storage) or 1 (the most recent message); got \(policy)")
            }
            if let push = step.push {
                guard devices[push.device] != nil else { throw fail("push.device", "the world has no device \(push.device)") }
                let file = push.file.hasPrefix("/") ? push.file : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(push.file).path
                guard FileManager.default.isReadableFile(atPath: file) else { throw fail("push.file", "there is no readable file \(file)") }
            }
            if case .add(let fault)? = step.fault, let problem = fault.problem() { throw fail("fault", problem) }
            if let send = step.send {
                switch (send.device, send.app, send.token) {
                case (nil, _?, nil) where send.broadcast != nil:
                    break
                case (_, _, _) where send.broadcast != nil:
                    throw fail("send.broadcast", "a broadcast goes to an app's channel: give broadcast and app, without device or token")
                case (let device?, let app?, nil):
                    guard let declared = devices[device] else {
                        throw fail("send.device", "the world has no device \(device); it has \(devices.keys.sorted().joined(separator: ", "))")
                    }
                    guard declared.apps.contains(where: { $0.bundleID == app }) || installedEarlier(app, on: device, before: index) else {
                        throw fail("send.app", "device \(device) has no app \(app)")
                    }
                case (nil, nil, let token?):
                    guard DeviceToken(token) != nil else { throw fail("send.token", "\(token) is not a device token in hex") }
                default:
                    throw fail("send", "give device and app, or token")
                }
                if send.payload != nil && send.payloadFile != nil { throw fail("send.payload", "give payload or payloadFile, not both") }
                if send.expiration != nil && send.expiresIn != nil { throw fail("send.expiresIn", "give expiration or expiresIn, not both") }
            }
            if let device = step.device {
                guard devices[device.id] != nil else { throw fail("device.id", "the world has no device \(device.id)") }
                if [.install, .uninstall, .foreground, .background].contains(device.action), device.app == nil {
                    throw fail("device.app", "\(device.action.rawValue) needs the app's bundle ID")
                }
                if device.action == .summary,
                   let problem = ScheduledSummary(times: device.times ?? [], apps: device.apps, timeZone: device.timeZone).problems.first {
                    throw fail("device.times", problem)
                }
                if step.expect?.summary != nil, device.action != .deliverSummary {
                    throw fail("expect.summary", "expect.summary is about a deliverSummary device action; this one is \(device.action.rawValue)")
                }
                if let unknown = device.options?.first(where: { !Foreground.knownOptions.contains($0) }) {
                    throw fail("device.options", "options are banner, list, sound and badge; got \(unknown)")
                }
            }
            if let expect = step.expect {
                if expect.summary != nil, step.device == nil {
                    throw fail("expect.summary", "expect.summary is about a deliverSummary device action; this step has none")
                }
                if (expect.status != nil || expect.reason != nil || expect.delivery != nil || expect.nothingDisplayed != nil)
                    && step.send == nil && step.push == nil {
                    throw fail("expect", "status, reason, delivery and nothingDisplayed are about a send; this step sends nothing")
                }
                if expect.delivery != nil && expect.nothingDisplayed != nil {
                    throw fail("expect.nothingDisplayed", "a send expects a delivery or nothing displayed, not both")
                }
                if let deliveries = expect.deliveries, devices[deliveries.device] == nil {
                    throw fail("expect.deliveries.device", "the world has no device \(deliveries.device)")
                }
                if let install = expect.install, devices[install.device] == nil {
                    throw fail("expect.install.device", "the world has no device \(install.device)")
                }
            }
        }
    }
}
