#if canImport(Glibc)
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import APNSimRules
import APNSimGateway
import APNSimProvider
import Foundation
import Logging
import ServiceLifecycle
import Subprocess
import Testing

/// Every `apnsim` process stops on SIGINT and SIGTERM, whatever it is doing, and says so; and no device outlives the
/// `apnsim up` that started it.
///
/// What is checked is that it stops, not how fast: ``hangGuard`` only ends a wait for a process that would never stop.
/// A limit of two seconds once stood here and failed on busy machines with processes that had stopped, because this
/// test process was slow to see them go (`Benchmarks/stop.sh` measures how long stopping takes).
@Suite("Process stops", .hangGuard, .endToEnd)
struct ProcessStopTests {
    static let signals: [Int32] = [SIGINT, SIGTERM]
    static let hangGuard: Duration = HangGuard.limit

    static func name(_ signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// Sends `signal` and checks the process ends and said why and that it stopped.
    static func expectStops(_ process: ApnsimProcess, on signal: Int32, _ state: String) async throws {
        process.signal(signal)
        let took = await process.exitTime(within: hangGuard)
        #expect(took != nil, "\(state): still running \(hangGuard) after \(name(signal))")
        let printed = process.printed
        #expect(printed.contains("\(name(signal)) received, stopping"), "\(state): printed \(printed)")
        #expect(printed.contains(": stopped"), "\(state): printed \(printed)")
    }

    @Test("A device that cannot reach its gateway stops", arguments: signals, [1, 100])
    func connecting(_ signal: Int32, count: Int) async throws {
        let nowhere = try ClosedPort()
        defer { nowhere.close() }
        let device = try await DeviceProcess.start(devicePort: nowhere.port, id: "nowhere", data: temporaryDirectory(),
                                             extra: ["--count", String(count)])
        _ = try await device.process.waitForOutput("started, linking to")
        try await Self.expectStops(device.process, on: signal, "connecting, \(count) device(s)")
    }

    /// The gateway's accept queue is full, so the device's SYN goes unanswered and its connect would wait out its
    /// timeout (600 s here; 3 s by default), which a stopping device once did.
    @Test("A device whose gateway does not answer its connection stops without waiting for the connect timeout", arguments: signals)
    func unansweredConnect(_ signal: Int32) async throws {
        let listener = try FullListener()
        defer { listener.close() }
        let device = try await DeviceProcess.start(devicePort: listener.port, id: "unanswered", data: temporaryDirectory(),
                                                   extra: ["--connect-timeout", "600", "--log-level", "debug"])
        _ = try await device.process.waitForOutput("device link connecting")
        try await Self.expectStops(device.process, on: signal, "connecting to a gateway that does not answer")
    }

    @Test("A device whose gateway went away (reconnecting with back-off) stops", arguments: signals)
    func reconnecting(_ signal: Int32) async throws {
        let (gateway, _) = try makeTestGateway()
        let device = try await gateway.withRunning { endpoints in
            let device = try await DeviceProcess.start(devicePort: endpoints.devicePort!, id: "orphan", data: temporaryDirectory())
            _ = try await device.process.waitForOutput("registered, token")
            return device
        }
        // The gateway is gone; the device is retrying.
        try await Self.expectStops(device.process, on: signal, "reconnecting")
    }

    @Test("A device stops in the middle of a stream of pushes", arguments: signals)
    func midDelivery(_ signal: Int32) async throws {
        try await withGateway { harness in
            let device = try await DeviceProcess.start(harness, id: "busy", data: temporaryDirectory())
            let line = try await device.process.waitForOutput("registered, token")
            let token = try #require(line.split(separator: " ").last.map(String.init)?.trimmingCharacters(in: .whitespacesAndNewlines))
            let client = try await harness.connect()
            let jwt = harness.jwt()
            let control = harness.control
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    while !Task.isCancelled {
                        _ = try? await client.send(.push(token: token, payload: GatewayHarness.alert, headers: harness.headers(jwt: jwt)))
                    }
                }
                // Pushes are arriving at the device: the first one is displayed.
                _ = try await control.deliveries("token=\(token)")
                try await Self.expectStops(device.process, on: signal, "mid-delivery")
                tasks.cancelAll()
            }
            await client.close()
        }
    }

    @Test("A device stops while an app is being installed on it", arguments: signals)
    func midInstall(_ signal: Int32) async throws {
        try await withGateway { harness in
            let device = try await DeviceProcess.start(harness, id: "installing", data: temporaryDirectory())
            _ = try await device.process.waitForOutput("registered, token")
            let control = harness.control
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask {
                    for number in 0..<1000 where !Task.isCancelled {
                        _ = try? await control.post("/v1/devices/installing/apps",
                                                    #"{"bundleID":"com.example.app\#(number)","team":"SIMTEAM001"}"#)
                    }
                }
                try await Self.expectStops(device.process, on: signal, "mid-install")
                tasks.cancelAll()
            }
        }
    }

    /// A gateway without `--store` keeps the attachment copies its devices send in a folder of its own under the
    /// temporary directory; a process ending runs no `deinit`, so the gateway removes it as it stops.
    @Test("A gateway stopped by a signal removes the temporary folder of its attachment copies", arguments: signals)
    func gatewayRemovesCopies(_ signal: Int32) async throws {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        @Sendable func copyFolders() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { $0.hasPrefix("apnsim-gateway-attachments-") }
        }
        let gateway = try await GatewayProcess.start(environment: ["TMPDIR": temporary.path])
        try await withMediaServer { media in
            let (device, tokens) = try await ChaosTests.devices(1, gateway: gateway, data: temporaryDirectory(),
                                                                extra: ["--extension", "com.example.app:com.example.app.NotificationService:braze"])
            defer { device.signal(SIGINT) }
            let token = try #require(tokens.first)
            let client = try await gateway.connect()
            let apnsID = UUID().uuidString.lowercased()
            let payload = ##"{"aps":{"alert":{"title":"Sale","body":"50% off"},"mutable-content":1},"ab":{"att":{"url":"\##(media)/media/sample.jpg","type":"jpg"}}}"##
            let response = try await client.send(.push(token: token, payload: payload,
                                                       headers: GatewayProcess.headers(jwt: try GatewayProcess.jwt(), apnsID: apnsID)))
            await client.close()
            #expect(response.status == 200)
            // The device sends the copy ahead of the receipt, on the same link: once the record says displayed, it is kept.
            let record = try #require(try await gateway.control.deliveries("apnsId=\(apnsID)").first)
            let content = try #require(record["content"] as? [String: Any])
            let sha = try #require((content["attachments"] as? [[String: Any]])?.first?["sha256"] as? String)
            let folders = try copyFolders()
            #expect(folders.count == 1)
            #expect(try folders.first.map { try FileManager.default.contentsOfDirectory(atPath: temporary.appendingPathComponent($0).path) } == ["\(sha).jpg"])
        }
        try await Self.expectStops(gateway.process, on: signal, "gateway with attachment copies")
        #expect(try copyFolders() == [])
    }

    @Test("The gateway stops with provider connections open and pushes in flight", arguments: signals)
    func gatewayUnderLoad(_ signal: Int32) async throws {
        let gateway = try await ApnsimProcess(["gateway", "--development-port", "0", "--production-port", "0", "--control-port", "0",
                                         "--device-port", "0", "--store", temporaryDirectory() + ".sqlite", "--log-level", "notice",
                                         "--stop-when-stdin-closes"] + GatewayProcess.hangGuardTimeouts)
        let banner = try await gateway.waitForOutput("CA to trust")
        let port = try #require(Self.port(after: "development (sandbox) provider API  https://127.0.0.1:", in: banner))
        let client: ProviderClient
        do {
            client = try await ProviderClient.connect(.init(host: "127.0.0.1", port: port, caFile: "Certs/ca.pem"))
        } catch {
            Issue.record("cannot connect to the gateway process: \(error); it printed:\n\(gateway.printed)")
            gateway.signal(SIGKILL)
            return
        }
        let signer = try ProviderTokenSigner(p8: String(contentsOfFile: "Certs/AuthKey_SIMKEY0001.p8", encoding: .utf8),
                                             keyID: "SIMKEY0001", teamID: "SIMTEAM001")
        let headers = [("authorization", "bearer \(signer.token(issuedAt: Date()))"), ("apns-topic", "com.example.app")]
        let token = "4a1159f70e8ea285a838979ff0918a664380fb5d614d952dfe10fa5a4cee141a"
        #expect(try await client.send(.push(token: token, payload: GatewayHarness.alert, headers: headers)).status == 200)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0..<8 {
                tasks.addTask {
                    while !Task.isCancelled, (try? await client.send(.push(token: token, payload: GatewayHarness.alert, headers: headers))) != nil {}
                }
            }
            try await Self.expectStops(gateway, on: signal, "gateway under load")
            tasks.cancelAll()
        }
        await client.close()
    }

    @Test("apnsim up stops with its devices on a signal, and its devices stop when it is killed", arguments: [SIGINT, SIGTERM, SIGKILL])
    func upAndItsDevices(_ signal: Int32) async throws {
        let up = try await ApnsimProcess(["up", "--development-port", "0", "--production-port", "0", "--control-port", "0",
                                    "--device-port", "0", "--media-port", "0", "--data", temporaryDirectory(), "--certs", "Certs",
                                    "--stop-when-stdin-closes"] + GatewayProcess.hangGuardTimeouts)
        _ = try await up.waitForOutput("Ctrl-C stops everything.")
        let devices = await Self.children(of: up.pid)
        #expect(devices.count == 2, "the sandbox world's two devices: \(devices)")
        if signal == SIGKILL {
            up.signal(SIGKILL)
            #expect(await up.exitTime(within: Self.hangGuard) != nil)
        } else {
            try await Self.expectStops(up, on: signal, "apnsim up")
        }
        for device in devices {
            #expect(await Self.waitUntilGone(device, within: Self.hangGuard), "device process \(device) outlived apnsim up (\(Self.name(signal)))")
            kill(device, SIGKILL)  // an orphan must not outlive the test either (it would hold swift test's output open)
        }
    }

    // MARK: - Helpers

    static func port(after prefix: String, in text: String) -> Int? {
        guard let range = text.range(of: prefix) else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Child process IDs, from `pgrep -P` (Linux and macOS).
    static func children(of pid: Int32) async -> [Int32] {
        await printed(by: "pgrep", ["-P", String(pid)]).split(whereSeparator: \.isNewline).compactMap { Int32($0) }
    }

    /// Whether process `pid`, not this test's child, ends (a zombie waiting for its new parent counts as ended).
    static func waitUntilGone(_ pid: Int32, within timeout: Duration) async -> Bool {
        (try? await withHangGuard(timeout) { await processExit(pid) }) != nil
    }

    /// What a short command prints; empty when it cannot be run.
    static func printed(by command: String, _ arguments: [String]) async -> String {
        let result = try? await Subprocess.run(.name(command), arguments: Arguments(arguments), output: .string(limit: 65_536))
        return result?.standardOutput ?? ""
    }
}

/// A loopback listener whose accept queue is full: it never accepts, and one connection fills a backlog of 0, so the
/// kernel drops the SYNs of every connection after it and their connects wait.
private struct FullListener {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let listener = socket(AF_INET, streamSocket, 0)
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Bool in
                bind(listener, address, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else { throw HarnessError("cannot listen on loopback: errno \(errno)") }
        let filler = socket(AF_INET, streamSocket, 0)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) == 0 }
        }
        guard connected else { throw HarnessError("cannot fill the accept queue: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptors = [listener, filler]
    }

    func close() {
        #if canImport(Glibc)
        for descriptor in descriptors { _ = Glibc.close(descriptor) }
        #else
        for descriptor in descriptors { _ = Darwin.close(descriptor) }
        #endif
    }
}

#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif
