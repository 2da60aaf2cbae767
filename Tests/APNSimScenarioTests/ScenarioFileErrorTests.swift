import APNSimRules
import APNSimScenario
import Foundation
import Testing

/// A mistake in a scenario or world file is one sentence naming the file, the line and the key, never a trace.
@Suite("Scenario and world file mistakes")
struct ScenarioFileErrorTests {
    static let head = "name: t\nworld:\n  extends: \(repositoryRoot.path)/Scenarios/sandbox.yaml\n"

    @Test("Each mistake names file, line, key and what was expected", arguments: [
        ("steps:\n  - send: {device: iphone-dev, app: com.example.app}\n    expcet: {status: 200}\n",
         ":6: steps[0].expcet: not a key this place takes; did you mean expect?"),
        ("steps:\n  - send:\n      device: iphone-dev\n      app: com.example.app\n      priority: high\n",
         ":8: steps[0].send.priority: expected a number, found \"high\""),
        ("steps:\n  - wait: 2 parsecs\n", ":5: steps[0].wait: expected a length of time such as 500ms, 2s, 61m or 1h, found \"2 parsecs\""),
        ("steps:\n  - send: {device: ipad, app: com.example.app}\n",
         ":5: steps[0].send.device: the world has no device ipad; it has iphone-dev, iphone-prod"),
        ("steps:\n  - send: {device: iphone-dev, app: com.example.app}\n  - {}\n", ":6: steps[1].expect: the step does nothing"),
        ("steps:\n  - device: {id: iphone-dev, action: reboot}\n", ":5: steps[0].device.action: "),
        ("steps: [{send: {device: iphone-dev}}\n", ":5: not valid YAML"),
        ("steps:\n  - expect: {status: 200}\n", ":5: steps[0].expect: status, reason, delivery and nothingDisplayed are about a send"),
    ])
    func mistake(_ body: String, _ expected: String) throws {
        let file = try write(Self.head + body)
        let error = try #require(throws: (any Error).self) { try ScenarioLoader.load(path: file) }
        let text = "\(error)"
        #expect(text.hasPrefix(file + expected), "got: \(text)")
        #expect(!text.contains("\n"), "one line: \(text)")
    }

    @Test("A scenario without name or steps says which key is missing, on the line of its parent")
    func missingKey() throws {
        let file = try write("name: t\nworld: {}\n")
        let error = try #require(throws: (any Error).self) { try ScenarioLoader.load(path: file) }
        #expect("\(error)" == "\(file):1: steps: missing; this key is required")
    }

    @Test("A world file's mistake names its line and key (it said only \"not valid YAML\" before)")
    func worldFile() throws {
        let text = "teams:\n  - {id: SIMTEAM001, name: T}\napps:\n  - bundleID: com.example.app\n    team: [SIMTEAM001]\n"
        let error = try #require(throws: WorldFileError.self) { try WorldFile.parse(text, path: "w.yaml") }
        #expect(error.description == "w.yaml:5: apps[0].team: expected a single value, found a list")
        let typo = try #require(throws: WorldFileError.self) {
            try WorldFile.parse("apps:\n  - bundleID: com.example.app\n    team: SIMTEAM001\n    serviceExtention: {}\n", path: "w.yaml")
        }
        #expect(typo.description.hasPrefix("w.yaml:4: apps[0].serviceExtention: not a key this place takes"))
    }

    @Test("Every scenario in Scenarios/ loads, and there are at least twenty")
    func shippedScenariosLoad() throws {
        let files = try ScenarioLoader.find([repositoryRoot.appendingPathComponent("Scenarios").path])
        #expect(files.count >= 20)
        for file in files {
            #expect(throws: Never.self, "\(file)") { try ScenarioLoader.load(path: file) }
        }
        #expect(!files.contains { $0.hasSuffix("sandbox.yaml") }, "world files are not scenarios")
    }

    private func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// The package's root folder.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
