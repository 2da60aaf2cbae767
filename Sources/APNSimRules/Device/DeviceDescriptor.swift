/// A simulated device as it introduces itself.
public struct DeviceDescriptor: Sendable, Hashable, Codable {
    /// Stable across restarts (kept in the device's data folder); names the device in the control API.
    public var id: String
    public var name: String
    public var model: String
    public var os: String
    /// The model and OS a device is when nothing says otherwise: an iPhone 15 Pro on iOS 18.1.
    public static let defaultModel = "iPhone16,1"
    public static let defaultOS = "iOS 18.1"

    public init(id: String, name: String, model: String = defaultModel, os: String = defaultOS) {
        self.id = id
        self.name = name
        self.model = model
        self.os = os
    }
}
