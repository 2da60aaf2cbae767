import APNSimScenario
import APNSimTestSupport
import Foundation
import Testing

/// The runner against real worlds (gateway, devices and media server over TLS on ephemeral ports).
@Suite("Scenario runner", .endToEnd)
struct ScenarioRunnerTests {
    static let runner = ScenarioRunner(options: .init(certs: repositoryRoot.appendingPathComponent("Certs").path,
                                                      media: repositoryRoot.appendingPathComponent("Scenarios/media").path))

    @Test("A shipped scenario passes, every step reported with what happened")
    func passes() async throws {
        let result = await Self.runner.run(path: repositoryRoot.appendingPathComponent("Scenarios/delivery/store-and-forward.yaml").path)
        #expect(result.passed, "\(result.failureText)")
        #expect(result.steps.map(\.happened).last == "2 deliveries: dropped, displayed")
        #expect(result.steps.map(\.line) == [7, 8, 13, 18, 19])
    }

    @Test("A wrong expectation fails its step with what was expected and what happened; later steps are skipped")
    func fails() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("failing-\(UUID().uuidString).yaml").path
        try """
        name: expects the wrong title
        world: {extends: \(repositoryRoot.path)/Scenarios/sandbox.yaml}
        steps:
          - send:
              device: iphone-dev
              app: com.example.app
              payload: {"aps": {"alert": {"title": "Hello", "body": "there"}}}
            expect: {delivery: {outcome: displayed, content: {title: Goodbye}}}
          - send: {device: iphone-dev, app: com.example.app, topic: com.wrong.app}
            expect: {status: 400, reason: DeviceTokenNotForTopic}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await Self.runner.run(path: file)
        #expect(!result.passed)
        #expect(result.steps.first?.failures == ["delivery.content.title: expected Goodbye, got \"Hello\""])
        #expect(result.steps.last?.skipped == true)
        let xml = ScenarioReport.junit([result], duration: .seconds(1))
        #expect(xml.contains(#"tests="1" failures="1""#))
        #expect(xml.contains("expected Goodbye, got &quot;Hello&quot;"))
        let report = ScenarioReport.text(result)
        #expect(report.hasPrefix("FAIL  \(file)  expects the wrong title"))
        #expect(report.contains("✗ 1. send to iphone-dev com.example.app (line 4): 200, displayed"))
    }

    @Test("A send that expects a GOAWAY and gets an answer instead fails, saying so")
    func goAwayExpectations() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("goaway-\(UUID().uuidString).yaml").path
        try """
        name: GOAWAY expected where there is none
        world: {extends: \(repositoryRoot.path)/Scenarios/sandbox.yaml}
        steps:
          - send: {device: iphone-dev, app: com.example.app}
            expect: {goAway: {reason: Shutdown}}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let result = await Self.runner.run(path: file)
        #expect(result.steps.first?.failures == ["goAway: expected the connection to end with GOAWAY, but the gateway answered 200"])
    }
}
