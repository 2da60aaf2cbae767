import APNSimRules
import APNSimTesting
import Foundation

/// `tap` and `dismiss` steps: the user's side of a displayed notification, and `expect: interaction` on its record
/// (docs/interactions.md).
extension ScenarioSession {
    func interact(_ interaction: Scenario.Interaction, dismiss: Bool,
                  expect pattern: JSONValue?) async throws -> (happened: String, failures: [String]) {
        let verb = dismiss ? "dismiss" : "tap"
        guard let apnsID = interaction.apnsID ?? lastAccepted[interaction.device] else {
            throw ScenarioRunError("\(verb): no push to device \(interaction.device) was accepted before this step; send one, or give apnsId")
        }
        var body: [String: JSONValue] = ["apnsId": .string(apnsID)]
        if let action = interaction.action { body["action"] = .string(action) }
        if let text = interaction.text { body["text"] = .string(text) }
        let answer = try await target.control.post("/v1/devices/\(interaction.device)/\(verb)", JSONValue.object(body).jsonText)
        if let refused = pattern?["refused"] {
            guard answer.status == 422 else {
                return ("\(verb) not refused", ["interaction: expected a refusal, but the control API answered \(answer.status)"])
            }
            let sentence = answer.body?["error"]
            return ("\(verb) refused: \(sentence?.string ?? "")", Pattern.mismatches(refused, sentence, at: "interaction.refused"))
        }
        guard answer.status == 200, let record = answer.body else {
            return ("\(verb) failed", ["\(verb): the control API answered \(answer.status) \(answer.body?["error"]?.string ?? "")"])
        }
        let failures = pattern.map { Pattern.mismatches($0, record, at: "interaction") } ?? []
        return (record["detail"]?.string ?? verb, failures)
    }
}
