// swift-tools-version: 6.1
import PackageDescription

// A toy app server that notifies its users through APNs, and the tests that check its send-to-display flow
// against apnsim, the way a team would: apnsim is a test-only dependency, taken by path here.
let package = Package(
    name: "ToyProvider",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "apnsim", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        .target(
            name: "ToyProvider",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "ToyProviderTests",
            dependencies: ["ToyProvider", .product(name: "APNSimTesting", package: "apnsim")]
        ),
    ]
)
