import APNSimCore
import APNSimGateway
import APNSimTestSupport
import Foundation
import Testing

/// The gateway's end of the device link, driven byte by byte.
@Suite("Device link", .endToEnd)
struct GatewayDeviceLinkTests {
    static func messages(in bytes: [UInt8]) -> [DeviceLinkMessage] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        var found: [DeviceLinkMessage] = []
        while let message = try? reader.next() { found.append(message) }
        return found
    }

    static func connect(_ harness: GatewayHarness, sending first: [UInt8] = []) async throws -> RawConnection {
        try await RawConnection.connect(port: harness.endpoints.devicePort!, tls: (harness.pki.caFile, []),
                                        clientCertificate: TestPKI.deviceIdentity, sending: first)
    }

    /// Three intervals of silence run from the link's start, TLS handshake included: on a busy machine a 1 s interval
    /// may close the link before its handshake is done, and then HeartbeatTimeout is all it gets. So this checks only
    /// that a silent link is closed saying why; that heartbeats are answered is checked on a link with the test
    /// gateways' own interval, which no handshake outlasts.
    @Test("A link silent for three heartbeat intervals is closed with HeartbeatTimeout")
    func heartbeatTimeout() async throws {
        try await withGateway({ $0.heartbeatInterval = 1 }) { harness in
            let raw = try await Self.connect(harness, sending: DeviceLinkFraming.frame(.hello(.init(device: .init(id: "raw-1", name: "raw")))))
            let messages = Self.messages(in: await raw.bytesUntilClosed())
            guard case .error(let error)? = messages.last else {
                Issue.record("expected an error message last, got \(messages)")
                return
            }
            #expect(error.reason == "HeartbeatTimeout")
        }
    }

    @Test("A heartbeat is answered with its sequence number")
    func heartbeatAnswered() async throws {
        try await withGateway { harness in
            let raw = try await Self.connect(harness, sending: DeviceLinkFraming.frame(.hello(.init(device: .init(id: "raw-1", name: "raw"))))
                                                               + DeviceLinkFraming.frame(.heartbeat(.init(sequence: 7))))
            let messages = Self.messages(in: await raw.bytes { Self.messages(in: $0).contains(.heartbeatAck(.init(sequence: 7))) })
            #expect(messages.contains(.heartbeatAck(.init(sequence: 7))), "\(messages)")
            #expect(!messages.contains { if case .error = $0 { true } else { false } }, "\(messages)")
            await raw.close()
        }
    }

    /// The request used to wait out its whole timeout (then 10 s, answered 504) when the device's link closed before
    /// it answered; with a device stopped mid-install, that was a test waiting two minutes.
    @Test("An install whose device goes offline before answering is answered 503 at once, not after its wait")
    func installOnALinkThatCloses() async throws {
        try await withGateway { harness in
            let raw = try await Self.connect(harness)
            try await raw.send(DeviceLinkFraming.frame(.hello(.init(device: .init(id: "raw-install", name: "raw")))))
            let control = ControlClient(port: harness.endpoints.controlPort)
            _ = try await control.devices { $0.contains { $0["id"] as? String == "raw-install" && $0["online"] as? Bool == true } }
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    let response = try await control.post("/v1/devices/raw-install/apps?wait=600",
                                                          #"{"bundleID":"com.example.app","team":"SIMTEAM001"}"#)
                    #expect(response.status == 409, "\(response.json)")
                    #expect((response.json as? [String: Any])?["error"] as? String == "device raw-install went offline before it answered about com.example.app; install it again once it is back")
                }
                // The install reaches the device, which never answers it; then its link closes.
                _ = await raw.bytes { Self.messages(in: $0).contains { if case .install = $0 { true } else { false } } }
                await raw.close()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("Bad first messages and bad frames get an error message, then the link closes", arguments: [
        DeviceLinkFraming.frame(.register(.init(bundleID: "com.example.app", environment: .development, installation: "I"))),
        DeviceLinkFraming.frame(.hello(.init(version: 99, device: .init(id: "raw-2", name: "raw")))),
        [0, 0, 0, 5] + Array("hello".utf8),
        [0x7F, 0, 0, 0],
    ])
    func badInput(_ bytes: [UInt8]) async throws {
        try await withGateway { harness in
            let raw = try await Self.connect(harness)
            try await raw.send(bytes)
            let messages = Self.messages(in: await raw.bytesUntilClosed())
            guard case .error(let error)? = messages.last else {
                Issue.record("expected an error message, got \(messages)")
                return
            }
            #expect(!error.explanation.isEmpty)
            try await BadInputTests.stillServes(harness)
        }
    }

    @Test("A device without a device identity certificate is refused at the TLS handshake")
    func noIdentity() async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.devicePort!, tls: (harness.pki.caFile, []))
            try? await raw.send(DeviceLinkFraming.frame(.hello(.init(device: .init(id: "anonymous", name: "x")))))
            let bytes = await raw.bytesUntilClosed()
            #expect(Self.messages(in: bytes).isEmpty, "no device-link message without an identity")
            let devices = try await ControlClient(port: harness.endpoints.controlPort).get("/v1/devices").json as? [Any]
            #expect(devices?.isEmpty == true)
        }
    }
}
