import APNSimRules
import APNSimStore
import Foundation

/// A sandbox session written as a scenario (`apnsim up --record FILE.yaml`): each provider request the gateway
/// answered becomes a `send` step with what came back as its expectation, and what the device displayed as the
/// delivery it expects, so `apnsim replay FILE.yaml` runs the session again and checks it still ends the same way.
///
/// What is kept of a delivery is what does not change from run to run: the outcome, the texts, the attachments'
/// types, the extension's kind and outcome; not times, IDs, tokens or hashes. Tokens of the world's devices are
/// written as `device` and `app` (a replayed world's devices get new tokens); other tokens as they were.
public struct SessionRecording: Sendable {
    /// The world file the session ran, as the scenario's `world.extends`.
    public var worldFile: String
    /// The media server's `…/media` URL in the session, written as `${media}`.
    public var mediaURL: String?
    /// Who owns each token: `(device, app)` by token hex.
    public var owners: [String: (device: String, app: String)]

    public init(worldFile: String, mediaURL: String?, owners: [String: (device: String, app: String)]) {
        self.worldFile = worldFile
        self.mediaURL = mediaURL
        self.owners = owners
    }

    /// The scenario's YAML for `sends` (oldest first) and `deliveries`, to be written at `path`.
    public func scenario(sends: [SendRecord], deliveries: [DeliveryRecord], path: String, recordedAt: Date) -> String {
        let stamp = recordedAt.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        let byAPNsID = Dictionary(deliveries.map { ($0.apnsID, $0) }, uniquingKeysWith: { first, _ in first })
        var lines = [
            "# Recorded by apnsim on \(stamp): what providers sent, and what the devices displayed as expectations.",
            "# Replay it with: apnsim replay \(path)",
            "name: Session recorded \(stamp)",
            "world:",
            "  extends: \(Self.relative(worldFile, from: URL(fileURLWithPath: path).deletingLastPathComponent().path))",
            "steps:",
        ]
        let requests = sends.filter { $0.method == "POST" && $0.status != 0 }
        if requests.isEmpty {
            lines.append("  - wait: 0ms   # no provider sent anything during the session")
        }
        for send in requests {
            lines.append("  - send: " + Self.flow(step(for: send)))
            lines.append("    expect: " + Self.flow(expectation(for: send, delivery: byAPNsID[send.apnsID])))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func step(for send: SendRecord) -> [String: JSONValue] {
        var step: [String: JSONValue] = [:]
        let token = send.token ?? ""
        if let owner = owners[token] {
            step["device"] = .string(owner.device)
            step["app"] = .string(owner.app)
        } else {
            step["token"] = .string(token)
        }
        step["environment"] = .string(send.environment)
        let headers = send.headers.dictionary
        step["topic"] = .string(headers["apns-topic"] ?? "none")
        step["pushType"] = .string(headers["apns-push-type"] ?? "none")
        if let priority = headers["apns-priority"].flatMap(Int.init) { step["priority"] = .number(Double(priority)) }
        if let expiration = headers["apns-expiration"].flatMap(Int.init) { step["expiration"] = .number(Double(expiration)) }
        if let collapse = headers["apns-collapse-id"] { step["collapseId"] = .string(collapse) }
        let text = mediaURL.map { (send.payload ?? "").replacingOccurrences(of: $0, with: "${media}") } ?? (send.payload ?? "")
        if let json = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object = json {
            step["payload"] = json
        } else {
            step["payload"] = .string(text)
        }
        if send.authMode == "certificate" {
            // The record does not say which certificate; the sandbox's own for the environment stands in.
            step["auth"] = .object(["certificate": .string("Certs/provider-\(send.environment).pem"),
                                    "certificateKey": .string("Certs/provider-\(send.environment)-key.pem")])
        } else if let key = send.keyID, let team = send.teamID, key != "SIMKEY0001" || team != "SIMTEAM001" {
            step["auth"] = .object(["key": .string(key), "team": .string(team)])
        }
        return step
    }

    private func expectation(for send: SendRecord, delivery: DeliveryRecord?) -> [String: JSONValue] {
        var expect: [String: JSONValue] = ["status": .number(Double(send.status))]
        if let reason = send.reason { expect["reason"] = .string(reason) }
        guard send.status == 200, let delivery, let outcome = delivery.outcome else { return expect }
        var expected: [String: JSONValue] = ["outcome": .string(outcome.rawValue)]
        if let content = delivery.content {
            var fields: [String: JSONValue] = [:]
            if let title = content.title { fields["title"] = .string(title) }
            if let subtitle = content.subtitle { fields["subtitle"] = .string(subtitle) }
            if let body = content.body { fields["body"] = .string(body) }
            if let badge = content.badge { fields["badge"] = .number(Double(badge)) }
            fields["attachments"] = .array(content.attachments.map { .object(["type": $0.type.map(JSONValue.string) ?? .null]) })
            expected["content"] = .object(fields)
        }
        if let run = delivery.extensionRun, run.ran {
            var fields: [String: JSONValue] = ["outcome": .string(run.outcome.rawValue)]
            if let kind = run.kind { fields["kind"] = .string(kind.rawValue) }
            if !run.refusedAttachments.isEmpty {
                fields["refusedAttachments"] = .array(run.refusedAttachments.map { attachment in
                    .object(["refusal": .object(["code": attachment.refusal.map { .number(Double($0.code.rawValue)) } ?? .null])])
                })
            }
            expected["extension"] = .object(fields)
        }
        expect["delivery"] = .object(expected)
        return expect
    }

    /// A value as a one-line flow mapping: JSON, which YAML reads as it is.
    static func flow(_ value: [String: JSONValue]) -> String {
        JSONValue.object(value).jsonText
    }

    /// `target` relative to the folder `base`, when it lies under a common root; absolute otherwise.
    static func relative(_ target: String, from base: String) -> String {
        let targetParts = URL(fileURLWithPath: target).standardizedFileURL.pathComponents
        let baseParts = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(targetParts.count, baseParts.count), targetParts[common] == baseParts[common] { common += 1 }
        guard common > 1 else { return URL(fileURLWithPath: target).standardizedFileURL.path }
        let ups = Array(repeating: "..", count: baseParts.count - common)
        return (ups + targetParts[common...]).joined(separator: "/")
    }
}
