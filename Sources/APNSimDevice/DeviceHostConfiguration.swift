import APNSimRules
import Foundation

/// Everything one simulated device needs: where the gateway's device link is, how to prove it is a device,
/// who it is, and which apps it has.
public struct DeviceHostConfiguration: Sendable {
    /// The gateways the device may link to: the replicas of one cluster, each name counting once for every address it
    /// resolves to (``GatewayEndpoint``). One gateway, unless the device is given several.
    public var gateways = [DeviceFleet.Gateway()]
    /// The first gateway's host and port, for a device given one.
    public var gatewayHost: String {
        get { gateways[0].host }
        set { gateways[0].host = newValue }
    }
    public var devicePort: Int {
        get { gateways[0].port }
        set { gateways[0].port = newValue }
    }
    /// PEM files: the CA that issued the gateway's certificate, and the device identity certificate and key.
    public var tls: TLSFiles
    public var device: DeviceDescriptor
    public var apps: [AppManifest]
    /// Where the device keeps its installation IDs across restarts; `nil` keeps them in memory.
    public var dataDirectory: String?
    /// How long a notification service extension has for each push (Apple: about 30 seconds).
    public var extensionBudget: Duration = .seconds(30)
    /// How long `serviceExtensionTimeWillExpire` has to hand something over (``ServiceExtensionRuntime/expiryGrace``).
    public var extensionGrace: Duration = .seconds(2)
    /// Apps whose notification settings have alerts off: iOS starts no service extension for them.
    public var alertsOff: Set<String> = []
    /// Skip a service extension for a push whose category is not among its `UNNotificationExtensionCategory`.
    /// iOS ignores that key for service extensions (it is for content extensions); some believe otherwise.
    public var extensionCategoriesApply = false
    /// How long one attempt to reach the gateway may take before it counts as failed and the device backs off. A
    /// stopping device does not wait for it: the attempt is abandoned at once.
    public var connectTimeout: Duration = .seconds(3)
    /// The longest pause between reconnection attempts; attempts start 0.1 s apart and double.
    public var maximumBackoff: Duration = .seconds(5)
    /// How often the device sends a heartbeat on its link.
    public var heartbeatInterval: Duration = .seconds(15)
    public var clock = WallClock.system
    /// Background pushes that may wake an app per period (``NotificationList/backgroundBudget``); `nil`: no limit.
    public var backgroundBudget: NotificationList.BackgroundBudget? = NotificationList.BackgroundBudget(count: 3, period: 3600)
    /// How many notifications of each app the device keeps shown (``NotificationList/displayedLimit``).
    public var notificationLimit = NotificationList().displayedLimit
    /// Priority-10 Live Activity updates an app may have per hour (``NotificationList/activityBudget``); `nil`: no limit.
    public var activityBudget: ActivityBudget? = ActivityBudget()
    /// Apps in the foreground and what their willPresent handler allows (``NotificationList/foreground``).
    public var foreground: [String: Set<PresentationOption>] = [:]
    /// For testing delivery guarantees: the device drops its link on this many incoming pushes before
    /// acknowledging them, as a device that dies mid-delivery would. The gateway must send them again.
    public var dropLinkBeforeAcknowledging = 0
    /// The other devices of this process, when it hosts several: a broadcast for many of them may come on one link
    /// (``DeviceHostGroup``); `nil`: pushes come on the device's own link only.
    public var group: DeviceHostGroup?

    public init(tls: TLSFiles, device: DeviceDescriptor, apps: [AppManifest]) {
        self.tls = tls
        self.device = device
        self.apps = apps
    }

    public struct TLSFiles: Sendable, Hashable {
        public var ca: String
        public var certificate: String
        public var privateKey: String

        public init(ca: String, certificate: String, privateKey: String) {
            self.ca = ca
            self.certificate = certificate
            self.privateKey = privateKey
        }

        /// The files `Certs/generate.sh` writes, under `directory`.
        public static func certsDirectory(_ directory: String) -> TLSFiles {
            TLSFiles(ca: "\(directory)/ca.pem", certificate: "\(directory)/device.pem", privateKey: "\(directory)/device-key.pem")
        }
    }
}
