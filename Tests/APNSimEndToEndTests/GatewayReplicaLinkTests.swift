import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// `apnsim device --gateway`, repeated: each device links to its home replica among the gateways it is given, the next
/// when that one does not answer (docs/cluster.md, "Which replica a device links to").
@Suite("Devices given several gateways", .endToEnd)
struct GatewayReplicaLinkTests {
    /// `count` devices with a link each in one `apnsim device` process given `gateways`; returns once each has
    /// registered its app with one of them.
    static func devices(_ count: Int, id: String, gateways: [Int], links: Int = 0) async throws -> ApnsimProcess {
        _ = TestPKI.deviceIdentity  // writes device.pem and device-key.pem into the test PKI folder
        let process = try await ApnsimProcess(["device", "--count", String(count), "--id", id, "--links", String(links), "--ephemeral",
                                               "--certs", TestPKI.shared.directory.path, "--stop-when-stdin-closes"]
                                              + gateways.flatMap { ["--gateway", "127.0.0.1:\($0)"] } + DeviceProcess.hangGuardTimeouts)
        _ = try await process.waitForOutput(timeout: HangGuard.limit) { text in
            text.components(separatedBy: "registered, token").count - 1 >= count
        }
        return process
    }

    /// The IDs of the devices online on the gateway `control` answers for.
    static func online(_ control: ControlClient) async throws -> Set<String> {
        let devices = try await control.get("/v1/devices").body?.array ?? []
        return Set(devices.compactMap { $0["online"]?.bool == true ? $0["id"]?.string : nil })
    }

    @Test("Eight devices given two gateways: each links to one, the same one every time, and both get some")
    func spread() async throws {
        try await withGateway { first in
            try await withGateway { second in
                let ports = [first.endpoints.devicePort!, second.endpoints.devicePort!]
                let all = Set((1...8).map { "spread-\($0)" })
                let process = try await Self.devices(8, id: "spread", gateways: ports)
                let (onFirst, onSecond) = (try await Self.online(first.control), try await Self.online(second.control))
                #expect(onFirst.isDisjoint(with: onSecond), "a device links to one replica: \(onFirst.intersection(onSecond))")
                #expect(onFirst.union(onSecond) == all)
                #expect(!onFirst.isEmpty && !onSecond.isEmpty, "both replicas have devices: \(onFirst.count) and \(onSecond.count)")
                await process.stop()

                // Started again, every device goes back to the replica it had: its home is its ID's, not chance's.
                let again = try await Self.devices(8, id: "spread", gateways: ports)
                defer { again.signal(SIGINT) }
                #expect(try await Self.online(first.control) == onFirst)
            }
        }
    }

    @Test("A replica that does not answer is passed over: devices whose home it is link to the next")
    func failover() async throws {
        try await withGateway { harness in
            let nobody = try RestartPort.pick()  // a free port nothing listens on
            let process = try await Self.devices(4, id: "failover", gateways: [nobody, harness.endpoints.devicePort!])
            defer { process.signal(SIGINT) }
            #expect(try await Self.online(harness.control) == Set((1...4).map { "failover-\($0)" }))
        }
    }

    @Test("Shared links go to the replicas in turn: two links, two gateways, one each")
    func sharedLinks() async throws {
        try await withGateway { first in
            try await withGateway { second in
                let process = try await Self.devices(6, id: "shared", gateways: [first.endpoints.devicePort!, second.endpoints.devicePort!], links: 2)
                defer { process.signal(SIGINT) }
                let (onFirst, onSecond) = (try await Self.online(first.control), try await Self.online(second.control))
                #expect(onFirst.count == 3 && onSecond.count == 3, "\(onFirst) and \(onSecond)")
            }
        }
    }
}
