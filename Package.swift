// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares: Swift 6 language mode plus the upcoming features the house style asks for.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "apnsim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "apnsim", targets: ["apnsim"]),
        .library(name: "APNSimRules", targets: ["APNSimRules"]),
        .library(name: "APNSimGateway", targets: ["APNSimGateway"]),
        .library(name: "APNSimInbox", targets: ["APNSimInbox"]),
        .library(name: "APNSimStore", targets: ["APNSimStore"]),
        .library(name: "APNSimProvider", targets: ["APNSimProvider"]),
        .library(name: "APNSimDevice", targets: ["APNSimDevice"]),
        .library(name: "APNSimExtensions", targets: ["APNSimExtensions"]),
        .library(name: "APNSimUserNotifications", targets: ["APNSimUserNotifications"]),
        .library(name: "APNSimSandbox", targets: ["APNSimSandbox"]),
        .library(name: "APNSimScenario", targets: ["APNSimScenario"]),
        .library(name: "APNSimTesting", targets: ["APNSimTesting"]),
    ],
    traits: [
        // Off by default: swift-otel adds minutes to a clean build. The Dockerfile and CI's tracing check turn it on.
        .trait(name: "OpenTelemetry", description: "Export each push's trace over OTLP/HTTP when OTEL_* variables ask (docs/tracing.md)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),  // hummingbird's; named for HTTPField
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The store gateway replicas share (docs/cluster.md).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // Tests only: the device link's round-trip property test (no dependencies of its own; seconds to build).
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Only with the OpenTelemetry trait, and only its OTLP/HTTP exporter (gRPC would add grpc-swift's build).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(
            // Apple's and iOS's rules as values, and the values the other modules record and show. No I/O, no locks, no
            // event loops: CI's layers check (Interop/check_imports.py) holds it to that.
            name: "APNSimRules",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // What the processes run on: glibc's allocator tuned, the one-reader event queue, the clocks that move.
            name: "APNSimRuntime",
            dependencies: ["APNSimRules"],
            swiftSettings: strictSettings
        ),
        .target(
            // The device link's wire protocol (docs/device-link.md): messages, framing, the hand-written codec. Only the
            // gateway and the device speak it.
            name: "APNSimDeviceLink",
            dependencies: ["APNSimRules"],
            swiftSettings: strictSettings
        ),
        .target(
            // The record and what a restart takes back, behind one protocol: SQLite (a file or memory) for one gateway,
            // PostgreSQL for replicas that share it.
            name: "APNSimStore",
            dependencies: [
                "APNSimRules",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "APNSimGateway",
            dependencies: [
                "APNSimRules", "APNSimDeviceLink", "APNSimRuntime",
                "APNSimStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // A replica sends the control requests for another's devices on to it (docs/cluster.md).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings,
            // The control API's OpenAPI description and the records' JSON Schema, served as docs/ has them.
            plugins: ["EmbedFiles"]
        ),
        .target(
            // The sandbox inbox on the control port: the page, its composer's routes, the devices' attachment copies.
            name: "APNSimInbox",
            dependencies: [
                "APNSimRules", "APNSimStore", "APNSimGateway",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The page: plain HTML, CSS and JavaScript, no build step, built into the binary (EmbedFiles), so an apnsim
            // copied alone serves it.
            exclude: ["Resources"],
            swiftSettings: strictSettings,
            plugins: ["EmbedFiles"]
        ),
        .target(
            name: "APNSimProvider",
            dependencies: [
                "APNSimRules",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "APNSimExtensions",
            dependencies: [
                "APNSimRules", "APNSimRuntime",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),  // Hummingbird's; the media server's fast path
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                // FilePath: Apple's systems have it in System; elsewhere swift-system's SystemPackage.
                .product(name: "SystemPackage", package: "swift-system", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings,
            // The mirror's sources, built into the binary: an installed apnsim builds a team's extension without
            // its checkout.
            plugins: ["EmbedFiles"]
        ),
        .executableTarget(name: "EmbedFilesTool", swiftSettings: strictSettings),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),
        .executableTarget(
            // Benchmarks/provider.sh's reference: SwiftNIO's HTTP/2 over TLS answering 200, nothing else.
            name: "nio-reference-server",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/NIOReferenceServer",
            swiftSettings: strictSettings
        ),
        .target(
            // Apple's UserNotifications as an extension uses it; `apnsim extension build` compiles these same files
            // as `UserNotifications` (and CGRect+Dictionary.swift as `CoreGraphics`) around a team's own extension,
            // and on Linux each folder of Modules/ as the module it is named for (os, OSLog, UniformTypeIdentifiers,
            // MobileCoreServices) when the extension imports it. Those are no part of this library.
            name: "APNSimUserNotifications",
            dependencies: ["APNSimRules"],
            exclude: ["Modules"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "APNSimDevice",
            dependencies: [
                "APNSimRules", "APNSimDeviceLink", "APNSimRuntime",
                "APNSimExtensions",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // One world running (gateway, media server, devices): what apnsim up, apnsim replay and APNSimTesting stand on.
            name: "APNSimSandbox",
            dependencies: [
                "APNSimRules", "APNSimRuntime", "APNSimGateway", "APNSimInbox", "APNSimStore", "APNSimDevice", "APNSimExtensions", "APNSimProvider",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings,
            // The development PKI, the sandbox world and its media, so an apnsim copied alone runs the sandbox.
            plugins: ["EmbedFiles"]
        ),
        .target(
            // A whole simulated world in a Swift test (start, tokens, provider settings, typed records, faults), and the
            // control API's client for a gateway started elsewhere.
            name: "APNSimTesting",
            dependencies: [
                "APNSimRules", "APNSimRuntime", "APNSimStore", "APNSimGateway", "APNSimSandbox", "APNSimProvider",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // Scenario files: the model, the loader with file:line errors, the runner and its reports.
            name: "APNSimScenario",
            dependencies: [
                "APNSimRules", "APNSimRuntime", "APNSimProvider", "APNSimSandbox", "APNSimStore", "APNSimTesting",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "apnsim",
            dependencies: [
                "APNSimRules", "APNSimRuntime",
                "APNSimGateway",
                "APNSimInbox",
                "APNSimStore",
                "APNSimProvider",
                "APNSimDevice",
                "APNSimExtensions",
                "APNSimSandbox",
                "APNSimScenario",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // What the test targets share: the hang guard, the trait that runs end-to-end tests a few at a time, an HTTP
            // client with the hang guard's timeouts, the test world and its keys (TestWorld). Not a product.
            name: "APNSimTestSupport",
            dependencies: [
                "APNSimTestScratch", "APNSimRules", "APNSimProvider",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/APNSimTestSupport",
            swiftSettings: strictSettings
        ),
        .target(
            // The in-process world the end-to-end tests stand on, on APNSimTesting's control client: a gateway on ephemeral
            // loopback ports with a test PKI and a clock the test moves (GatewayHarness), devices over the real link and
            // TLS, the media server, raw HTTP/2 connections. Not a product: `package` access only.
            name: "APNSimTestKit",
            dependencies: [
                "APNSimTestSupport", "APNSimTesting",
                "APNSimRules", "APNSimRuntime", "APNSimGateway", "APNSimInbox", "APNSimStore", "APNSimProvider", "APNSimDevice", "APNSimExtensions",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Tests/APNSimTestKit",
            swiftSettings: strictSettings
        ),
        .target(
            // Sets TMPDIR to a folder of the test process's own before any test runs, and removes it at exit, so that
            // `swift test` leaves nothing in the temporary directory (Tests/APNSimTestScratch/scratch.c).
            name: "APNSimTestScratch",
            path: "Tests/APNSimTestScratch"
        ),
        .testTarget(
            name: "APNSimRulesTests",
            dependencies: [
                "APNSimTestSupport",
                "APNSimRules", "APNSimProvider",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimDeviceLinkTests",
            dependencies: ["APNSimDeviceLink", "APNSimRules", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimRuntimeTests",
            dependencies: ["APNSimRuntime", "APNSimTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // The one target that starts real apnsim processes (and so depends on the executable; Support/ starts them),
            // and the tests that run a gateway and devices in one process over loopback TLS (on APNSimTestKit).
            name: "APNSimEndToEndTests",
            dependencies: [
                "APNSimRules", "APNSimDeviceLink", "APNSimRuntime", "APNSimGateway", "APNSimInbox", "APNSimStore", "APNSimProvider", "APNSimDevice", "APNSimExtensions",
                "APNSimSandbox", "APNSimTesting", "APNSimTestSupport", "APNSimTestKit",
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                "apnsim",  // built for the tests that start real device processes
                .product(name: "Yams", package: "Yams"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // The gateway's parts without sockets: the registry, the connection state machine, the held pushes; and the
            // Live Activity rules it shares with the device, held to the device's (APNSimDevice).
            name: "APNSimGatewayTests",
            dependencies: ["APNSimGateway", "APNSimRules", "APNSimDeviceLink", "APNSimRuntime", "APNSimStore", "APNSimDevice",
                           "APNSimProvider", "APNSimTestSupport",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                           .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOEmbedded", package: "swift-nio"),
                           .product(name: "NIOTLS", package: "swift-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimExtensionsTests",
            dependencies: ["APNSimExtensions", "APNSimRules", "APNSimTestSupport",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimInboxTests",
            dependencies: ["APNSimInbox", "APNSimGateway", "APNSimRules"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimProviderTests",
            dependencies: ["APNSimProvider", "APNSimRules", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimSandboxTests",
            dependencies: ["APNSimSandbox"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            // Seeded mutation of every decoder of outside input (2,000 inputs each; 100,000 with APNSIM_STRESS=1): none may trap.
            name: "APNSimFuzzTests",
            dependencies: ["APNSimRules", "APNSimDeviceLink", "APNSimProvider", "APNSimDevice", "APNSimGateway", "APNSimSandbox",
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimDeviceTests",
            dependencies: ["APNSimRules", "APNSimDeviceLink", "APNSimDevice", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimUserNotificationsTests",
            dependencies: ["APNSimUserNotifications"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimScenarioTests",
            dependencies: ["APNSimRules", "APNSimScenario", "APNSimStore", "APNSimTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimTestingTests",
            dependencies: ["APNSimTesting", "APNSimScenario", "APNSimProvider", "APNSimGateway", "APNSimTestSupport",
                           .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APNSimStoreTests",
            dependencies: ["APNSimRules", "APNSimRuntime", "APNSimStore", .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
    ]
)
