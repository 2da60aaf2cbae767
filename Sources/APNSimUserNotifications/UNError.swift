/// The error domain of `UNError`.
public let UNErrorDomain = "UNErrorDomain"

/// Apple's `UNError`: what `UNNotificationAttachment(identifier:url:options:)` throws. `catch let error as UNError`
/// and `(error as NSError).domain == UNErrorDomain` both work, as on Apple's systems.
///
/// Apple, "UNError.Code", https://developer.apple.com/documentation/usernotifications/unerror/code
public struct UNError: CustomNSError, Hashable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case notificationsNotAllowed = 1
        case attachmentInvalidURL = 100
        case attachmentUnrecognizedType = 101
        case attachmentInvalidFileSize = 102
        case attachmentNotInDataStore = 103
        case attachmentMoveIntoDataStoreFailed = 104
        case attachmentCorrupt = 105
        case notificationInvalidNoDate = 1400
        case notificationInvalidNoContent = 1401
        case contentProvidingObjectNotAllowed = 1500
        case contentProvidingInvalid = 1501
    }

    public let code: Code
    /// apnsim's sentence for what was refused; Apple's errors carry a shorter, generic one.
    public let reason: String

    public init(_ code: Code, reason: String = "") {
        self.code = code
        self.reason = reason
    }

    public static var errorDomain: String { UNErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: reason] }
    public var description: String { "UNErrorDomain \(code.rawValue): \(reason)" }

    public static var attachmentInvalidURL: Code { .attachmentInvalidURL }
    public static var attachmentUnrecognizedType: Code { .attachmentUnrecognizedType }
    public static var attachmentInvalidFileSize: Code { .attachmentInvalidFileSize }
    public static var attachmentCorrupt: Code { .attachmentCorrupt }

    public static func == (lhs: UNError, rhs: UNError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
