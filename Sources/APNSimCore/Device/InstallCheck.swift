import Foundation

/// Whether iOS would install an app that wants push, and if not, the message Xcode or the device gives.
///
/// Apple does not publish one table of these messages; apnsim uses the wording Xcode's signing pane shows
/// for each case, and the `registerForRemoteNotifications` error iOS
/// gives for a missing entitlement. The checks run in the order Xcode reports them.
public enum InstallCheck {
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable, Codable {
            case teamMismatch, appIDMismatch, expiredProfile, wildcardWithPush, noPushCapability,
                 noPushEntitlement, entitlementMismatch
        }
        public var kind: Kind
        public var description: String
    }

    /// The first reason iOS refuses `app`, or `nil` when it installs.
    public static func refusal(for app: AppManifest, now: Date) -> Refusal? {
        let profile = app.profile
        if profile.team != app.team {
            return Refusal(kind: .teamMismatch, description:
                "Provisioning profile \"\(profile.name)\" belongs to team \(profile.team), which does not match the signing team \(app.team).")
        }
        if !profile.covers(bundleID: app.bundleID, team: app.team) {
            return Refusal(kind: .appIDMismatch, description:
                "Provisioning profile \"\(profile.name)\" has app ID \"\(profile.appID)\", which does not match the bundle ID \"\(app.bundleID)\".")
        }
        if profile.expires <= now {
            return Refusal(kind: .expiredProfile, description:
                "Provisioning profile \"\(profile.name)\" expired on \(profile.expires.formatted(.iso8601)).")
        }
        guard let environment = app.apsEnvironment else {
            return Refusal(kind: .noPushEntitlement, description:
                "no valid \"aps-environment\" entitlement string found for application")
        }
        if profile.isWildcard {
            return Refusal(kind: .wildcardWithPush, description:
                "Provisioning profile \"\(profile.name)\" doesn't support the Push Notifications capability: a wildcard App ID cannot have it.")
        }
        if !profile.pushCapability {
            return Refusal(kind: .noPushCapability, description:
                "Provisioning profile \"\(profile.name)\" doesn't support the Push Notifications capability.")
        }
        if profile.kind.apsEnvironment != environment {
            return Refusal(kind: .entitlementMismatch, description:
                "Provisioning profile \"\(profile.name)\" doesn't match the entitlements file's value for the aps-environment entitlement (\(profile.kind.rawValue) profile, \(environment) entitlement).")
        }
        return nil
    }
}
