/// A simulated device as it introduces itself.
public struct DeviceDescriptor: Sendable, Hashable, Codable {
    /// Stable across restarts (kept in the device's data folder); names the device in the control API.
    public var id: String
    public var name: String
    public var model: String
    public var os: String
    public init(id: String, name: String, model: String = "iPhone16,1", os: String = "iOS 18.1") {
        self.id = id
        self.name = name
        self.model = model
        self.os = os
    }
}
