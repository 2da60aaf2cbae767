import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// A `deviceLink` fault drops one device's link, in either link mode (docs/device-link.md, "Shared links"): its own
/// connection, or its session on the link its process's devices share, the others' staying up.
@Suite("Device link faults", .endToEnd)
struct DeviceLinkFaultTests {
    @Test("A dropped link: the device links again and gets its next push; another device of its process keeps its link")
    func dropOne() async throws {
        try await withGateway { harness in
            try await withDevices(harness, ids: ["pair-1", "pair-2"]) { hosts in
                let control = harness.control
                let before = try await control.devices { $0.count == 2 && $0.allSatisfy { $0["linkedAt"] != nil } }
                #expect(before.allSatisfy { $0["link"] as? String == (TestLinks.shared ? "shared" : "own") }, "\(before)")
                let linkedAt = Dictionary(uniqueKeysWithValues: before.map { ($0["id"] as! String, $0["linkedAt"] as! String) })

                harness.clock.advance(by: 1)  // so a new link's time differs from the first's
                let fault = try await control.post("/v1/faults", #"{"kind":"deviceLink","device":"pair-1","drop":true}"#)
                #expect(fault.status == 200 || fault.status == 201, "\(fault.json)")
                let after = try await control.devices { devices in
                    devices.contains { $0["id"] as? String == "pair-1" && $0["online"] as? Bool == true
                        && $0["linkedAt"] as? String != linkedAt["pair-1"] }
                }
                let other = try #require(after.first { $0["id"] as? String == "pair-2" })
                #expect(other["linkedAt"] as? String == linkedAt["pair-2"], "the other device's link stayed up: \(after)")
                #expect(other["online"] as? Bool == true)

                let token = try #require(hosts[0].tokens["com.example.app"])
                let apnsID = UUID().uuidString
                let response = try await DeviceDeliveryTests.push(harness, token: token, payload: #"{"aps":{"alert":"after the drop"}}"#, apnsID: apnsID)
                #expect(response.status == 200)
                let record = try #require(try await DeviceDeliveryTests.delivery(control, apnsID: apnsID))
                #expect(record["outcome"] as? String == "displayed")
            }
        }
    }
}
