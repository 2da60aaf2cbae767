import APNSimRules
import Foundation

/// An extension that does what the push's `apnsim.extension` object says, to test what a misbehaving extension
/// does to the send-to-display flow (docs/extensions.md):
///
/// ```json
/// "apnsim": {"extension": {"action": "hang", "atExpiry": "best-attempt", "delay": 1}}
/// ```
///
/// `action`: `modify` (the default: `title` and `body` replace the text), `hang` (never calls its content handler),
/// `crash`, `throw`, `twice` (calls its handler with `title` "first", then "second"), `suppress` (hands over empty
/// content), `remove-alert` (hands over content without text), `hold` (holds `mib` MiB). `delay`: seconds before
/// acting (up to 600). `atExpiry`: what `serviceExtensionTimeWillExpire` does: `original` (the default),
/// `best-attempt` (the modified text) or `nothing`.
struct ScriptedExtension: BuiltInExtension {
    static let actions = ["modify", "hang", "crash", "throw", "twice", "suppress", "remove-alert", "hold"]

    func didReceive(_ content: NotificationContent, context: ExtensionContext) async throws -> ExtensionResult? {
        let script = content.userInfo["apnsim"]?["extension"]
        guard case .object = script else {
            return .original("no apnsim.extension object in the payload: the scripted extension shows the push as sent")
        }
        let action = script?["action"]?.string ?? "modify"
        guard Self.actions.contains(action) else {
            return .original("apnsim.extension.action must be one of \(Self.actions.joined(separator: ", ")); got \(script?["action"].map(String.init(describing:)) ?? "")")
        }
        if let delay = script?["delay"]?.number, delay.isFinite, delay > 0 {
            try await Task.sleep(for: .milliseconds(Int64(min(delay, 600) * 1000)))
        }
        switch action {
        case "hang":
            try await Task.sleep(until: .now + .seconds(86_400), clock: .continuous)  // until the runtime gives up on it
            return nil
        case "crash":
            context.handler.send(.crashed("the extension crashed (scripted: EXC_BAD_ACCESS)"))
            return nil
        case "throw":
            throw ScriptedError()
        case "twice":
            var first = content
            first.title = "first"
            context.handler(.init(content: first, diagnostic: "scripted: called its content handler twice"))
            var second = content
            second.title = "second"
            return .init(content: second, diagnostic: "scripted: the second call")
        case "suppress":
            return .init(content: NotificationContent(), diagnostic: "scripted: handed over empty content")
        case "remove-alert":
            var changed = content
            (changed.title, changed.subtitle, changed.body) = (nil, nil, nil)
            return .init(content: changed, diagnostic: "scripted: handed over content without text")
        case "hold":
            let mib = max(0, script?["mib"]?.integer ?? 0)
            context.hold(mib * 1_048_576)
            return .init(content: Self.modified(content, script), diagnostic: "scripted: held \(mib) MiB and modified the text")
        default:
            return .init(content: Self.modified(content, script), diagnostic: "scripted: modified the text")
        }
    }

    func willExpire(_ content: NotificationContent, context: ExtensionContext) async -> ExtensionResult? {
        let script = content.userInfo["apnsim"]?["extension"]
        switch script?["atExpiry"]?.string {
        case "best-attempt": return .init(content: Self.modified(content, script), diagnostic: "it handed over its best attempt")
        case "nothing": return nil
        default: return .original("it handed over the original content")
        }
    }

    static func modified(_ content: NotificationContent, _ script: JSONValue?) -> NotificationContent {
        var changed = content
        if let title = script?["title"]?.string { changed.title = title }
        if let body = script?["body"]?.string { changed.body = body }
        return changed
    }

    struct ScriptedError: Error, CustomStringConvertible {
        var description: String { "threw ScriptedError (scripted)" }
    }
}
