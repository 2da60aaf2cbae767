/// An app's icon badge: `count` 0 means none.
public struct AppBadge: Sendable, Hashable, Codable {
    public var bundleID: String
    public var count: Int
    public init(bundleID: String, count: Int) {
        self.bundleID = bundleID
        self.count = count
    }
}
