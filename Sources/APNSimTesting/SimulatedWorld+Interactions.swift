import APNSimRules
import APNSimGateway
import APNSimStore
import Foundation

extension SimulatedWorld {
    /// The user taps the notification the push `apnsID` showed on `device`, or presses its button `action` (with `text`
    /// for a text-input action): what the app opened and reported (docs/interactions.md). Throws a sentence naming
    /// the input when nothing happened: no such notification shown, no such button, text for a button that takes none.
    @discardableResult
    public func tap(device: String, apnsID: String, action: String? = nil, text: String? = nil) async throws -> InteractionRecord {
        try await gateway.tap(device: device, apnsID: apnsID, action: action, text: text)
    }

    /// The user dismisses the notification the push `apnsID` showed on `device`; its record says whether the app was
    /// told (only with the category's `customDismissAction`).
    @discardableResult
    public func dismiss(device: String, apnsID: String) async throws -> InteractionRecord {
        try await gateway.dismiss(device: device, apnsID: apnsID)
    }

    /// The interaction records so far, oldest first (`GET /v1/interactions`).
    public func interactions(_ filter: InteractionFilter = InteractionFilter()) async throws -> [InteractionRecord] {
        try await gateway.store.interactions(matching: filter)
    }

    /// The user turns a Focus on `device` (`Focus(name: "Work", allowedApps: [...])`), or off with `nil`: it holds the
    /// notifications of the apps it does not allow (docs/interactions.md, "Focus and interruption levels").
    public func setFocus(_ focus: Focus?, device: String) throws {
        try gateway.setFocus(focus, device: device)
    }

    /// The user sets a Scheduled Summary on `device`, or turns it off with `nil`.
    public func setSummary(_ summary: ScheduledSummary?, device: String) throws {
        try gateway.setSummary(summary, device: device)
    }

    /// `device` delivers its Scheduled Summary now, as if its time had come: what it delivered, highest
    /// `relevance-score` first.
    @discardableResult
    public func deliverSummary(device: String) async throws -> SummaryDelivery {
        try await gateway.deliverSummary(device: device)
    }

    /// The summaries devices delivered so far (of `device` when given), oldest first (`GET /v1/summaries`).
    public func summaries(device: String? = nil) async throws -> [SummaryDelivery] {
        try await gateway.store.summaries(device: device)
    }
}
