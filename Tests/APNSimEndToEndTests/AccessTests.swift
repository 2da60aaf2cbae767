import APNSimDeviceLink
import APNSimGateway
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// Who may reach the gateway's doors: the control API (a token beyond loopback) and the device link (a device
/// certificate from the gateway's CA).
@Suite("Access", .endToEnd)
struct AccessTests {
    static func status(_ port: Int, authorization: String?) async throws -> (Int, String) {
        let answer = try await ControlClient(port: port).get("/v1/health", headers: authorization.map { [("Authorization", $0)] } ?? [])
        if let text = answer.json as? String { return (answer.status, text) }
        return (answer.status, String(decoding: try JSONSerialization.data(withJSONObject: answer.json), as: UTF8.self))
    }

    @Test("With a control token, requests without it or with another get 401 and a sentence; with it, 200")
    func controlToken() async throws {
        try await withGateway({ $0.controlHost = "0.0.0.0"; $0.controlToken = "s3cret-token" }) { harness in
            let port = harness.endpoints.controlPort
            let missing = try await Self.status(port, authorization: nil)
            #expect(missing.0 == 401)
            #expect(missing.1.contains("Authorization: Bearer"))
            #expect(try await Self.status(port, authorization: "Bearer wrong").0 == 401)
            #expect(try await Self.status(port, authorization: "Bearer s3cret-token").0 == 200)
            #expect(try await Self.status(port, authorization: "bearer s3cret-token").0 == 200, "the scheme is case-insensitive")
        }
    }

    @Test("The control API will not listen beyond loopback without a token, and says why")
    func controlBeyondLoopbackNeedsToken() async throws {
        var caught: (any Error)?
        do {
            try await withGateway({ $0.controlHost = "0.0.0.0" }) { _ in }
        } catch {
            caught = error
        }
        #expect("\(caught.map { "\($0)" } ?? "no error")".contains("--control-token"))
    }

    @Test("A device whose certificate is not from the gateway's CA is refused at TLS and nothing is registered")
    func foreignDevice() async throws {
        try await withGateway { harness in
            let foreign = try harness.pki.providerCertificate(.init(bundleID: "apnsim device", environments: [], topics: nil,
                                                                    foreignIssuer: true))
            let raw = try await RawConnection.connect(port: harness.endpoints.devicePort!, tls: (harness.pki.caFile, []),
                                                      clientCertificate: foreign)
            try? await raw.send(DeviceLinkFraming.frame(.hello(.init(device: .init(id: "intruder", name: "x")))))
            let answered = await raw.bytesUntilClosed()
            #expect(GatewayDeviceLinkTests.messages(in: answered).isEmpty, "no welcome, no message at all")
            let devices = try await harness.control.get("/v1/devices").json as? [Any]
            #expect(devices?.isEmpty == true)
        }
    }
}
