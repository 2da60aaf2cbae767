import APNSimDevice
import APNSimGateway
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import Foundation
import Testing

/// What the test harness gives every gateway, device and process it starts: the hang guard for each timeout that
/// only guards against a slow peer. Each of these was the product's own before (10 s for a handshake, 45 s of a
/// silent link, a 3 s connect, a 2 s grace at expiry), and on a slow machine under the suite's load one of them
/// decided a verdict; each check fails with the product's value. What the timeouts do is tested where a test is
/// about them, with short ones (HandshakeTimeoutTests, GatewayDeviceLinkTests, ExtensionRuntimeTests,
/// ProviderConnectionHandlerTests).
@Suite("Test harness: no product timeout a test is not about", .endToEnd)
struct HarnessTimeoutTests {
    @Test("A test gateway waits as long as the hang guard for a provider's handshake, a silent device link and an install's answer")
    func gateway() throws {
        let (gateway, _) = try makeTestGateway()
        #expect(gateway.configuration.connection.handshakeTimeout >= HangGuard.limit)
        #expect(gateway.configuration.heartbeatInterval * 3 >= HangGuard.limit.inSeconds, "three silent intervals end a link")
        #expect(gateway.configuration.installWait >= HangGuard.limit, "an install without ?wait= waits for the device's answer")
    }

    @Test("A test device waits as long as the hang guard for its connect and its extensions, on its gateway's clock")
    func device() async throws {
        try await withGateway { harness in
            let configuration = deviceConfiguration(harness, id: "harness-1")
            #expect(configuration.connectTimeout >= HangGuard.limit)
            #expect(configuration.extensionGrace >= HangGuard.limit)
            #expect(testExtensionBudget >= HangGuard.limit)
            harness.clock.advance(by: 3600)
            #expect(configuration.clock.now() == harness.clock.now, "the gateway's clock")
        }
    }

    @Test("Gateway and device processes get the same timeouts as options")
    func processes() {
        func seconds(_ arguments: [String], _ option: String) -> Double? {
            arguments.firstIndex(of: option).flatMap { Double(arguments[$0 + 1]) }
        }
        let limit = HangGuard.limit.inSeconds
        #expect(seconds(GatewayProcess.hangGuardTimeouts, "--handshake-timeout") ?? 0 >= limit)
        #expect((seconds(GatewayProcess.hangGuardTimeouts, "--heartbeat-interval") ?? 0) * 3 >= limit)
        #expect(seconds(GatewayProcess.hangGuardTimeouts, "--install-wait") ?? 0 >= limit)
        for option in ["--connect-timeout", "--extension-budget", "--extension-grace"] {
            #expect(seconds(DeviceProcess.hangGuardTimeouts, option) ?? 0 >= limit, "\(option)")
        }
    }
}
