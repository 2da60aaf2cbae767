/// An app brought to the foreground with what its delegate's `willPresent` returns, or sent to the background
/// (`POST /v1/devices/{id}/foreground`, a scenario's `foreground:`).
public struct Foreground: Sendable, Hashable, Codable {
    public var bundleID: String
    /// What the app's `userNotificationCenter(_:willPresent:)` returns: `banner`, `list`, `sound`, `badge`
    /// (none: nothing is shown); `nil`: the app goes to the background.
    public var options: [String]?

    /// The presentation options iOS has, by the names the device link uses.
    public static let knownOptions: Set<String> = ["banner", "list", "sound", "badge"]

    public init(bundleID: String, options: [String]?) {
        self.bundleID = bundleID
        self.options = options
    }
}
