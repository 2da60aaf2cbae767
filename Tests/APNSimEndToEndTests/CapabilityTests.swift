#if canImport(Glibc)
import APNSimTestKit
import APNSimTesting
import Glibc
#endif
import APNSimProvider
import APNSimTestSupport
import Foundation
import Testing

/// apnsim's processes need no capability a container lacks. Docker's default set has no `CAP_NET_ADMIN`, and a
/// socket option that needs it (`SO_DEBUG`, once set by mistake for `TCP_NODELAY`) failed every provider
/// connection and every device link in a container while passing on a host run as root.
@Suite("Without CAP_NET_ADMIN, as in a container", .endToEnd)
struct CapabilityTests {
    @Test("A gateway and a device without CAP_NET_ADMIN link, take a provider's push and display it",
          .hangGuard, .enabled(if: Capabilities.withoutNetAdmin != nil, "running as root without capsh (Debian: libcap2-bin) to drop CAP_NET_ADMIN"))
    func linkAndDeliver() async throws {
        let wrapper = try #require(Capabilities.withoutNetAdmin)
        let gateway = try await GatewayProcess.start(under: wrapper)
        #expect(try Capabilities.hasNetAdmin(pid: gateway.process.pid) == false, "the wrapper did not drop CAP_NET_ADMIN")

        // The gateway's side of an accepted connection, then the device's side of its link.
        let client = try await gateway.connect()
        let device = try await ApnsimProcess(["device", "--id", "no-net-admin", "--device-port", String(gateway.devicePort),
                                              "--certs", "Certs", "--data", temporaryDirectory(), "--stop-when-stdin-closes"]
                                             + DeviceProcess.hangGuardTimeouts, under: wrapper)
        // A link that fails is retried for ever: the first failure decides.
        let printed = try await device.waitForOutput { $0.contains("registered, token") || $0.contains("device link failed") }
        let registered = try #require(printed.split(whereSeparator: \.isNewline).first { $0.contains("registered, token") },
                                      "the device did not link:\n\(printed)")
        let token = try #require(registered.split(separator: " ").last.map(String.init))

        let id = UUID().uuidString
        let response = try await client.send(.push(token: token, payload: #"{"aps":{"alert":"no capabilities needed"}}"#,
                                                   headers: GatewayProcess.headers(jwt: try GatewayProcess.jwt(), apnsID: id)))
        #expect(response.status == 200)
        let deliveries = try await gateway.control.deliveries("apnsId=\(id)")
        #expect(deliveries.first?["outcome"] as? String == "displayed", "\(deliveries)")

        await client.close()
        await device.stop()
        await gateway.process.stop()
    }
}

/// Running a child process without `CAP_NET_ADMIN`.
enum Capabilities {
    /// The command that execs the rest of its arguments without `CAP_NET_ADMIN`: none for a user other than root (who
    /// has no capabilities), `capsh` dropping it from the bounding set for root; `nil` for root without `capsh`.
    static let withoutNetAdmin: [String]? = {
        guard geteuid() == 0 else { return [] }
        let capsh = ["/usr/sbin/capsh", "/sbin/capsh", "/usr/bin/capsh"].first { FileManager.default.isExecutableFile(atPath: $0) }
        return capsh.map { [$0, "--drop=cap_net_admin", "--", "-c", #"exec "$@""#, "capsh"] }
    }()

    /// Whether process `pid` has `CAP_NET_ADMIN` (bit 12) in its effective set, from `/proc/PID/status`.
    static func hasNetAdmin(pid: Int32) throws -> Bool {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
              let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16) else {
            throw HarnessError("no CapEff line in /proc/\(pid)/status")
        }
        return mask & (1 << 12) != 0
    }
}
