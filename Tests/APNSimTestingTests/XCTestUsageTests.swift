import APNSimTesting
import XCTest

/// The same world from XCTest, for suites that have not moved to Swift Testing.
final class XCTestUsageTests: XCTestCase {
    func testSandboxDevicesHaveTokens() async throws {
        try await SimulatedWorld.run { world in
            let development = try world.token(device: "iphone-dev", app: "com.example.app")
            let production = try world.token(device: "iphone-prod", app: "com.example.app")
            XCTAssertNotEqual(development, production)
            XCTAssertTrue(world.provider.url(.development).hasPrefix("https://127.0.0.1:"))
            XCTAssertTrue(FileManager.default.fileExists(atPath: world.provider.caFile))
        }
    }
}
