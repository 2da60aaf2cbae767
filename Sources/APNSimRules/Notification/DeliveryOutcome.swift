/// What became of a delivered push (the control API's `outcome`).
public enum DeliveryOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    case displayed, background, voip, liveactivity, replaced, suppressed, dropped
}
