import APNSimCore
import APNSimStore
import Foundation

/// Which device owns each token a device registered, and where a removed app's token was: what the router asks of
/// every accepted push ("which device gets it, or why none"), kept as a value apart from the links so its rules are
/// tested with plain values. ``DeviceDirectory`` keeps one under its lock.
struct TokenOwnership: Sendable {
    /// Where a token's app was until it was removed: a push the gateway still accepts for it (within the uninstall
    /// delay) gets a delivery record saying so, not silence.
    struct FormerOwner: Sendable, Hashable {
        var device: String
        var bundleID: String
        /// When the app was removed; the token answers 410 from then on (plus the gateway's uninstall delay).
        var removedAt: Date
    }

    private var owners: [DeviceToken: String] = [:]
    private var former: [DeviceToken: FormerOwner] = [:]

    /// The device that owns `token` now.
    func owner(of token: DeviceToken) -> String? { owners[token] }

    /// The device `token`'s app was removed from, when no device owns it now.
    func formerOwner(of token: DeviceToken) -> FormerOwner? { owners[token] == nil ? former[token] : nil }

    /// Device `device` registered `token`: it owns it from now on, whoever did before.
    mutating func registered(_ token: DeviceToken, device: String) {
        owners[token] = device
        former[token] = nil
    }

    /// The app of `token` (`bundleID`) was removed from device `device` at `date`. Another device that owns the token
    /// by now keeps it; either way the removal is remembered for when no device owns it.
    mutating func removed(_ token: DeviceToken, bundleID: String, from device: String, at date: Date) {
        if owners[token] == device { owners[token] = nil }
        former[token] = FormerOwner(device: device, bundleID: bundleID, removedAt: date)
    }

    /// Takes back what a previous run of the gateway recorded: owners of live registrations, and removals.
    mutating func restore(_ registrations: [DeviceRegistration]) {
        for registration in registrations {
            if let removedAt = registration.unregisteredFrom {
                if owners[registration.token] == nil {
                    former[registration.token] = FormerOwner(device: registration.device.id, bundleID: registration.bundleID,
                                                             removedAt: removedAt)
                }
            } else {
                registered(registration.token, device: registration.device.id)
            }
        }
    }
}
