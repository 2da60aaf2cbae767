import APNSimCore
import APNSimDevice
import Foundation
import Testing
import Yams

/// The service-extension examples in Scenarios/extensions, run for real: each file's world (the sandbox's, with
/// its changes), each `send` over the gateway and each `expect` against the delivery record, so the examples stay
/// true until `apnsim replay` runs them.
@Suite("Scenario examples: service extensions")
struct ScenarioExampleTests {
    static let folder = repositoryRoot.appendingPathComponent("Scenarios/extensions")
    static let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()

    @Test("Every example in Scenarios/extensions does what it says", arguments: files)
    func example(_ file: String) async throws {
        let url = Self.folder.appendingPathComponent(file)
        let scenario = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any], "\(file)")
        let world = try #require(scenario["world"] as? [String: Any], "\(file): no world")
        let base = try WorldFile.load(path: Self.folder.appendingPathComponent(try #require(world["extends"] as? String)).path)
        var apps = base.apps
        for override in world["apps"] as? [[String: Any]] ?? [] {
            let app = try YAMLDecoder().decode(World.App.self, from: try Yams.dump(object: override))
            apps[app.bundleID] = app.resolvingPaths(relativeTo: Self.folder)
        }
        let declared = try #require(apps["com.example.app"])
        var app = AppManifest.signed(bundleID: declared.bundleID, team: declared.team, environment: .development, now: Date())
        app.serviceExtension = declared.serviceExtension
        app.resources = declared.resources ?? base.apps[declared.bundleID]?.resources
        let steps = Parsed(try #require(scenario["steps"] as? [[String: Any]], "\(file): no steps"))
        let installed = app
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [installed]) { device in
                    for (number, step) in steps.value.enumerated() {
                        let at = "\(file) step \(number + 1)"
                        let expect = step["expect"] as? [String: Any] ?? [:]
                        if let install = expect["install"] as? [String: Any] {
                            let refusal = device.refusals[installed.bundleID]?.description
                            for problem in Self.mismatches(install["refused"] as Any, refusal, at: "\(at) install.refused") {
                                Issue.record(Comment(rawValue: problem))
                            }
                        }
                        guard let send = step["send"] as? [String: Any] else { continue }
                        let payload = String(decoding: try JSONSerialization.data(withJSONObject: try #require(send["payload"])), as: UTF8.self)
                            .replacingOccurrences(of: #"http:\/\/127.0.0.1:8199"#, with: media.replacingOccurrences(of: "/", with: #"\/"#))
                        let delivery = try await sendToExtension(payload, media: media, harness: harness, device: device)
                        for problem in Self.mismatches(expect["delivery"] as Any, delivery.record, at: "\(at) delivery") {
                            Issue.record(Comment(rawValue: problem))
                        }
                    }
                }
            }
        }
    }

    /// YAML read into Foundation values, which are not marked Sendable; never changed once read.
    struct Parsed<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Where `actual` differs from `expected`: objects match the keys they name, arrays element by element,
    /// `{contains: TEXT}` a string holding TEXT, numbers and Booleans by value.
    static func mismatches(_ expected: Any, _ actual: Any?, at path: String) -> [String] {
        switch expected {
        case let object as [String: Any] where object.count == 1 && object["contains"] is String:
            let text = object["contains"] as! String
            return (actual as? String)?.contains(text) == true ? [] : ["\(path): expected text containing \"\(text)\", got \(actual ?? "nothing")"]
        case let object as [String: Any]:
            guard let actual = actual as? [String: Any] else { return ["\(path): expected an object, got \(actual ?? "nothing")"] }
            return object.keys.sorted().flatMap { mismatches(object[$0]!, actual[$0], at: "\(path).\($0)") }
        case let array as [Any]:
            let actual = actual as? [Any] ?? []
            guard array.count == actual.count else { return ["\(path): expected \(array.count) items, got \(actual)"] }
            return zip(array, actual).enumerated().flatMap { mismatches($1.0, $1.1, at: "\(path)[\($0)]") }
        case let flag as Bool:
            return (actual as? Bool) == flag ? [] : ["\(path): expected \(flag), got \(actual ?? "nothing")"]
        case let number as Int:
            return (actual as? NSNumber)?.doubleValue == Double(number) ? [] : ["\(path): expected \(number), got \(actual ?? "nothing")"]
        default:
            return "\(expected)" == (actual.map { "\($0)" } ?? "") ? [] : ["\(path): expected \(expected), got \(actual ?? "nothing")"]
        }
    }
}
