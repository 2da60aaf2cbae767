// swift-tools-version: 6.0
// An extension built by a Swift package of its own (kind swift, source: this folder): its one executable product
// speaks docs/extension-protocol.md. A package can also depend on apnsim's APNSimUserNotifications library and
// call ServiceExtensionHost.run; this one needs nothing but Foundation, so it builds without fetching anything.
import PackageDescription

let package = Package(
    name: "PackagedExtension",
    targets: [.executableTarget(name: "PackagedExtension")]
)
