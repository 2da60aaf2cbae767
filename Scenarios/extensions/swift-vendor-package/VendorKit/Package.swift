// swift-tools-version: 5.9
// A push vendor's SDK as a Swift package, in the shape vendors ship theirs (written here for apnsim, not taken from
// any vendor): the app adds the product VendorKitExtension to its notification service extension target, which
// builds its two targets. apnsim builds the product from this folder as SwiftPM checked it out
// (`modules: [{package: …, product: VendorKitExtension}]`, docs/own-extensions.md).
import PackageDescription

let package = Package(
    name: "VendorKit",
    platforms: [.iOS(.v15)],
    products: [
        .library(name: "VendorKitExtension", targets: ["VendorKitExtension"]),
    ],
    targets: [
        .target(name: "VendorKitPayload"),
        .target(name: "VendorKitExtension", dependencies: ["VendorKitPayload"], exclude: ["README.md"]),
    ]
)
