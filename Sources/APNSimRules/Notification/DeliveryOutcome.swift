/// What became of a delivered push (the control API's `outcome`). `widget`: a `widgets` or `controls` push went to
/// WidgetKit, and the record's `widgets` says what it reloaded.
public enum DeliveryOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    case displayed, background, voip, liveactivity, widget, replaced, suppressed, dropped
}
