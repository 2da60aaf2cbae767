// The vendor's payload, read from a push's userInfo: `{"vk": {"media": URL, "media_type": "jpg"}}`.
import Foundation

public struct VendorPayload {
    public var media: URL
    /// The file extension to save the media under when its URL has none.
    public var mediaType: String

    public init?(userInfo: [AnyHashable: Any]) {
        guard let vendor = userInfo["vk"] as? [String: Any], let address = vendor["media"] as? String,
              let media = URL(string: address) else { return nil }
        self.media = media
        self.mediaType = vendor["media_type"] as? String ?? (media.pathExtension.isEmpty ? "jpg" : media.pathExtension)
    }
}
