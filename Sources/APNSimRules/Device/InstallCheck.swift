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
                 noPushEntitlement, entitlementMismatch,
                 extensionPrefix, extensionTeamMismatch, extensionProfile, extensionPoint,
                 /// An App Group entitlement the target's provisioning profile does not have.
                 appGroups,
                 /// A kind `swift` extension whose source does not build: the compiler's messages.
                 extensionBuild
        }
        public var kind: Kind
        public var description: String

        public init(kind: Kind, description: String) {
            self.kind = kind
            self.description = description
        }
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
        if let refusal = appGroupsRefusal(app.appGroups ?? [], profile: profile, target: app.bundleID) { return refusal }
        return app.serviceExtension.flatMap { refusal(for: $0, in: app, now: now) }
    }

    /// The first reason the app's notification service extension stops it installing: Xcode's embedding and
    /// signing checks, then the device's. The extension needs its own explicit App ID and profile (a wildcard one
    /// is not enough, as Braze's and Apple's set-up guides say); apnsim words that case and the extension-point one
    /// itself, as Apple publishes no message for them.
    static func refusal(for embedded: ServiceExtensionManifest, in app: AppManifest, now: Date) -> Refusal? {
        guard embedded.bundleID.hasPrefix(app.bundleID + ".") else {
            return Refusal(kind: .extensionPrefix, description:
                "Embedded binary's bundle identifier is not prefixed with the parent app's bundle identifier. Embedded Binary Bundle Identifier: \(embedded.bundleID); Parent App Bundle Identifier: \(app.bundleID).")
        }
        let team = embedded.team ?? app.team
        guard team == app.team else {
            return Refusal(kind: .extensionTeamMismatch, description:
                "Embedded binary is not signed with the same certificate as the parent app. Verify the embedded binary target's code sign settings match the parent app's (extension team \(team), app team \(app.team)).")
        }
        if let profile = embedded.profile {
            if profile.team != team {
                return Refusal(kind: .extensionProfile, description:
                    "Provisioning profile \"\(profile.name)\" belongs to team \(profile.team), which does not match the signing team \(team) of \(embedded.bundleID).")
            }
            if profile.isWildcard {
                return Refusal(kind: .extensionProfile, description:
                    "Provisioning profile \"\(profile.name)\" has the wildcard app ID \"\(profile.appID)\"; the notification service extension \(embedded.bundleID) needs its own explicit App ID and provisioning profile.")
            }
            if !profile.covers(bundleID: embedded.bundleID, team: team) {
                return Refusal(kind: .extensionProfile, description:
                    "Provisioning profile \"\(profile.name)\" has app ID \"\(profile.appID)\", which does not match the bundle ID \"\(embedded.bundleID)\".")
            }
            if profile.expires <= now {
                return Refusal(kind: .extensionProfile, description:
                    "Provisioning profile \"\(profile.name)\" expired on \(profile.expires.formatted(.iso8601)).")
            }
            if let refusal = appGroupsRefusal(embedded.appGroups, profile: profile, target: embedded.bundleID) { return refusal }
        }
        // Any of Apple's extension points installs (a content extension never runs on a push, which the record says).
        guard embedded.extensionPoint.hasPrefix("com.apple.") else {
            return Refusal(kind: .extensionPoint, description:
                "Appex bundle at PlugIns/\(embedded.bundleID.split(separator: ".").last ?? "").appex with identifier \(embedded.bundleID) has an unknown NSExtensionPointIdentifier \"\(embedded.extensionPoint)\".")
        }
        return nil
    }

    /// Xcode's signing error when a target's `com.apple.security.application-groups` entitlement lists a group its
    /// profile's App ID does not have (a profile that names no groups follows the entitlements, as automatic signing
    /// makes it).
    static func appGroupsRefusal(_ groups: [String], profile: ProvisioningProfile, target: String) -> Refusal? {
        guard let allowed = profile.appGroups, !groups.isEmpty else { return nil }
        guard !allowed.isEmpty else {
            return Refusal(kind: .appGroups, description:
                "Provisioning profile \"\(profile.name)\" doesn't include the com.apple.security.application-groups entitlement (\(target) lists \(groups.joined(separator: ", "))).")
        }
        let missing = groups.filter { !allowed.contains($0) }
        guard missing.isEmpty else {
            return Refusal(kind: .appGroups, description:
                "Provisioning profile \"\(profile.name)\" doesn't match the entitlements file's value for the com.apple.security.application-groups entitlement (\(target) lists \(missing.joined(separator: ", ")), which the profile's App ID does not have).")
        }
        return nil
    }
}
