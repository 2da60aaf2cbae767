import Foundation

/// A `.apns` file as `xcrun simctl push` takes it: a JSON payload whose top-level "Simulator Target Bundle" names
/// the app (removed before sending), sent as a background push when it only has `content-available`.
public struct SimctlPayload: Sendable {
    /// The app the file names, if it names one.
    public var targetBundle: String?
    /// The payload to send: the file without "Simulator Target Bundle".
    public var payload: String
    /// `content-available: 1` with no alert, badge or sound: `apns-push-type: background`, priority 5.
    public var isBackground: Bool

    public init(text: String, file: String) throws(SimctlPayloadError) {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw SimctlPayloadError("\(file) is not a JSON object")
        }
        targetBundle = object.removeValue(forKey: "Simulator Target Bundle") as? String
        payload = (try? JSONSerialization.data(withJSONObject: object)).map { String(decoding: $0, as: UTF8.self) } ?? text
        let aps = object["aps"] as? [String: Any] ?? [:]
        isBackground = aps["content-available"] as? Int == 1 && aps["alert"] == nil && aps["badge"] == nil && aps["sound"] == nil
    }

    /// The headers simctl's push would imply for `bundleID`.
    public func headers(bundleID: String) -> [(name: String, value: String)] {
        [("apns-topic", bundleID), ("apns-push-type", isBackground ? "background" : "alert"), ("apns-priority", isBackground ? "5" : "10")]
    }
}

public struct SimctlPayloadError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
