import APNSimDeviceLink
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// The gateway's end of the device link, driven byte by byte.
@Suite("Device link", .endToEnd)
struct GatewayDeviceLinkTests {
    static func messages(in bytes: [UInt8]) -> [DeviceLinkMessage.ToDevice] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        var found: [DeviceLinkMessage.ToDevice] = []
        while let message = try? reader.next() { found.append(message) }
        return found
    }

    /// How many whole frames `bytes` holds, from their lengths alone.
    static func frameCount(in bytes: [UInt8]) -> Int {
        var count = 0, start = 0
        while bytes.count - start >= 4 {
            let length = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count - start - 4 >= length else { break }
            start += 4 + length
            count += 1
        }
        return count
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
                                                               + DeviceLinkFraming.frame(DeviceLinkMessage.Written.heartbeat(.init(sequence: 7))))
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
            let control = harness.control
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

    /// The gateway's buffer for a device link is bounded (`--device-link-buffer`): a device that stops reading loses its
    /// link once the buffer is full, instead of the gateway holding everything sent to it, and loses nothing by it.
    @Test("A device that stops reading loses its link when its buffer is full, and gets every push not replaced offline on its next link")
    func stalledDevice() async throws {
        try await withGateway({ $0.deviceLinkBufferLimit = 64 << 10 }) { harness in
            let hello = DeviceLinkFraming.frame(.hello(.init(device: .init(id: "raw-stalled", name: "raw"))))
                + DeviceLinkFraming.frame(.register(.init(bundleID: "com.example.app", environment: .development, installation: "I")))
            func link() async throws -> RawConnection {
                try await RawConnection.connect(port: harness.endpoints.devicePort!, tls: (harness.pki.caFile, []),
                                                clientCertificate: TestPKI.deviceIdentity, sending: hello, receiveBuffer: 4096)
            }
            let stalled = try await link()
            let registered = Self.messages(in: await stalled.bytes { Self.messages(in: $0).contains { if case .registered = $0 { true } else { false } } })
            guard case .registered(let registration)? = registered.first(where: { if case .registered = $0 { true } else { false } }) else {
                Issue.record("no registered message: \(registered)")
                return
            }
            try await stalled.stopReading()

            // Pushes of 3 KB, 50 at a time, until the device shows offline or 12 MB went: more than the link's 64 KiB, its
            // outbox's 64 KiB and the largest send buffer Linux gives a socket by default (4 MiB, tcp_wmem). The link ends
            // once its TLS shutdown is over, which waits a while for a peer that reads nothing; the check waits for it.
            let control = harness.control
            let client = try await harness.connect()
            let payload = #"{"aps":{"alert":{"title":"stalled","body":""# + String(repeating: "x", count: 3000) + #""}}}"#
            let headers = harness.headers(jwt: harness.jwt())
            let isOffline: @Sendable ([[String: Any]]) -> Bool = { devices in
                devices.contains { $0["id"] as? String == "raw-stalled" && $0["online"] as? Bool == false }
            }
            var sent = 0
            while sent < 4_000 {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<50 {
                        group.addTask { try await client.send(.push(token: registration.token.hex, payload: payload, headers: headers)).status }
                    }
                    for try await status in group { #expect(status == 200) }
                }
                sent += 50
                if isOffline(try await control.get("/v1/devices").json as? [[String: Any]] ?? []) { break }
            }
            await client.close()
            _ = try await control.devices(until: isOffline)

            // Every push is either waiting for the device (sent again on its next link) or was replaced by a newer one
            // while it was offline (one per app waits: docs/devices.md), and so recorded dropped.
            let records = try await control.get("/v1/deliveries?device=raw-stalled&limit=10000").json as? [[String: Any]] ?? []
            #expect(records.count == sent)
            let outcomes = records.map { $0["outcome"] as? String }  // absent or null: no outcome yet
            let waiting = Set(zip(records, outcomes).filter { $0.1 == nil }.compactMap { $0.0["id"] as? String })
            #expect(outcomes.allSatisfy { $0 == nil || $0 == "dropped" }, "\(Set(outcomes.compactMap { $0 }))")
            let again = try await link()
            // Megabytes of frames: counted by their lengths as they come (reading each whole every time took minutes).
            let pushes = Self.messages(in: await again.bytes { Self.frameCount(in: $0) >= waiting.count + 2 })  // welcome, registered
                .compactMap { if case .push(let push) = $0 { push.id } else { nil } }
            let missing = waiting.subtracting(pushes).count
            #expect(missing == 0, "\(missing) of the \(waiting.count) waiting pushes did not come again")
            await again.close()
            await stalled.close()
        }
    }

    @Test("A device without a device identity certificate is refused at the TLS handshake")
    func noIdentity() async throws {
        try await withGateway { harness in
            let raw = try await RawConnection.connect(port: harness.endpoints.devicePort!, tls: (harness.pki.caFile, []))
            try? await raw.send(DeviceLinkFraming.frame(.hello(.init(device: .init(id: "anonymous", name: "x")))))
            let bytes = await raw.bytesUntilClosed()
            #expect(Self.messages(in: bytes).isEmpty, "no device-link message without an identity")
            let devices = try await harness.control.get("/v1/devices").json as? [Any]
            #expect(devices?.isEmpty == true)
        }
    }
}
