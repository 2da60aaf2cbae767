import Foundation

/// When APNs starts answering 410 `Unregistered` for the token of an app removed from its device. Apple: the 410's
/// `timestamp` is "the last time at which APNs confirmed that the device token was no longer valid for the topic"
/// ("Handling notification responses from APNs",
/// https://developer.apple.com/documentation/usernotifications/handling-notification-responses-from-apns), and APNs
/// learns it from the device: providers see 200 for a while after an uninstall, each push discarded (the Push
/// Notifications Console's "Discarded – Token Unregistered"), then 410.
public enum UninstallDelay: Sendable, Hashable, CustomStringConvertible {
    /// Until the device tells APNs: the first push to the token that reaches the device (linked, here or through
    /// another replica) is answered 200 and discarded, and the token answers 410 from then on, with that time. Pushes
    /// while the device is out of reach are answered 200 and discarded too. The default.
    case untilDeviceTells
    /// This many seconds after the removal, whatever is sent meanwhile; 0: at once (apnsim's behaviour before).
    case seconds(TimeInterval)

    /// When the token answers 410, for a removal at `now`; `nil`: once the device tells APNs.
    func unregisteredFrom(removedAt now: Date) -> Date? {
        switch self {
        case .untilDeviceTells: nil
        case .seconds(let delay): now.addingTimeInterval(delay)
        }
    }

    /// When the token of an app removed at `now` answers 410 as the token table keeps it: ``notLearned`` until the
    /// device tells APNs.
    func tokenEnd(removedAt now: Date) -> Date {
        unregisteredFrom(removedAt: now) ?? Self.notLearned
    }

    /// The date a removal APNs has not learned yet is kept with, in the token table and the store: later than any
    /// push, so the validator accepts pushes to the token until it is replaced by the time the device told APNs.
    static let notLearned = Date.distantFuture

    /// `learn`, or a number of seconds (`apnsim gateway --uninstall-delay`); `nil` for anything else.
    public init?(argument: String) {
        if argument == "learn" {
            self = .untilDeviceTells
        } else if let seconds = Double(argument), seconds.isFinite, seconds >= 0 {
            self = .seconds(seconds)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .untilDeviceTells: "learn"
        case .seconds(let seconds): seconds.formatted()
        }
    }
}
