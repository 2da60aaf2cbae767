import APNSimCore
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
    public func interactions(_ filter: InteractionFilter = InteractionFilter()) throws -> [InteractionRecord] {
        try gateway.store.interactions(matching: filter)
    }
}
