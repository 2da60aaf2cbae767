#if canImport(Glibc)
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import APNSimProvider
import Foundation
import Synchronization
import Testing

/// Nothing answered 200 is lost when the gateway is killed (SIGKILL) while it runs with a store file: after a
/// restart on the same file, every accepted push is displayed or recorded dropped by Apple's rules.
@Suite("Chaos: killed gateway", .serialized, .endToEnd)
struct ChaosTests {
    /// Starts `count` devices in one `apnsim device` process (with `extra` options) and returns it with each device's
    /// token. They use the committed Certs/, which a ``GatewayProcess`` trusts.
    static func devices(_ count: Int, gateway: GatewayProcess, data: String, id: String = "chaos",
                        extra: [String] = []) async throws -> (ApnsimProcess, [String]) {
        let process = try await ApnsimProcess(["device", "--count", String(count), "--id", id, "--device-port", String(gateway.devicePort),
                                         "--certs", "Certs", "--data", data, "--stop-when-stdin-closes"] + DeviceProcess.hangGuardTimeouts + extra)
        let printed = try await process.waitForOutput(timeout: HangGuard.limit) { text in
            text.components(separatedBy: "registered, token").count - 1 >= count
        }
        let tokens = printed.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            guard line.contains("registered, token") else { return nil }
            return line.split(separator: " ").last.map(String.init)
        }
        return (process, tokens)
    }

    /// Sends one push per entry of `tokens` over `connections` connections, with apns-ids chosen here; returns
    /// the apns-ids answered 200. Connection failures (the gateway was killed) end a connection's share quietly.
    /// `accepted` is called as each 200 arrives, so a test can kill the gateway the moment a count is reached, with
    /// no request of its own (a control-API read flushes the record) in between.
    static func send(_ tokens: [String], gateway: GatewayProcess, connections: Int = 4,
                     accepted onAccepted: @escaping @Sendable () -> Void = {}) async throws -> Set<String> {
        let jwt = try GatewayProcess.jwt()
        return try await withThrowingTaskGroup(of: Set<String>.self) { tasks in
            for share in 0..<connections {
                tasks.addTask {
                    guard let client = try? await gateway.connect() else { return [] }
                    let accepted = try await withThrowingTaskGroup(of: String?.self) { pushes in
                        for (index, token) in tokens.enumerated() where index % connections == share {
                            pushes.addTask {
                                let id = UUID().uuidString
                                let response = try? await client.send(.push(token: token, payload: #"{"aps":{"alert":"chaos"}}"#,
                                                                            headers: GatewayProcess.headers(jwt: jwt, apnsID: id)))
                                guard response?.status == 200 else { return nil }
                                onAccepted()
                                return id
                            }
                        }
                        var ids = Set<String>()
                        for try await id in pushes { if let id { ids.insert(id) } }
                        return ids
                    }
                    await client.close()
                    return accepted
                }
            }
            var all = Set<String>()
            for try await ids in tasks { all.formUnion(ids) }
            return all
        }
    }

    /// Waits until every apns-id in `ids` has a delivery record with an outcome; returns the outcomes found.
    static func outcomes(of ids: Set<String>, gateway: GatewayProcess, within timeout: Duration) async throws -> [String: String] {
        let deadline = ContinuousClock.now + timeout
        var found: [String: String] = [:]
        while ContinuousClock.now < deadline {
            let records = try await gateway.control.get("/v1/deliveries?limit=100000&wait=60&count=\(ids.count)").json as? [[String: Any]] ?? []
            found = [:]
            for record in records {
                if let id = record["apnsId"] as? String, ids.contains(id), let outcome = record["outcome"] as? String { found[id] = outcome }
            }
            if found.count == ids.count { break }
        }
        return found
    }

    @Test("100 pushes accepted for 100 offline devices, then SIGKILL at once: all 100 are displayed after a restart",
          .hangGuard)
    func offlineDevices() async throws {
        let store = temporaryDirectory() + ".sqlite"
        let data = temporaryDirectory()
        let first = try await GatewayProcess.start(store: store, devicePort: try RestartPort.pick())
        let (devices, tokens) = try await Self.devices(100, gateway: first, data: data)
        #expect(tokens.count == 100)
        await devices.stop()
        // The gateway sees the links close.
        _ = try await first.control.devices { list in list.count == 100 && list.allSatisfy { $0["online"] as? Bool == false } }

        let answered = Counter()
        let accepted = try await Self.send(tokens, gateway: first) {
            if answered.increment() == tokens.count { first.process.signal(SIGKILL) }  // at once, on the last 200
        }
        #expect(accepted.count == 100, "every push is accepted before the kill")
        #expect(await first.process.exitTime(within: HangGuard.limit) != nil)

        let second = try await GatewayProcess.start(store: store, devicePort: first.devicePort)
        let (again, _) = try await Self.devices(100, gateway: second, data: data)
        let outcomes = try await Self.outcomes(of: accepted, gateway: second, within: HangGuard.limit)
        #expect(outcomes.count == accepted.count, "\(accepted.count - outcomes.count) accepted pushes have no outcome after the restart")
        #expect(outcomes.values.allSatisfy { $0 == "displayed" }, "\(Set(outcomes.values))")
        await again.stop()
        await second.process.stop()
    }

    @Test("SIGKILL under load with devices online: every push answered 200 is displayed or recorded dropped after a restart",
          .hangGuard)
    func underLoad() async throws {
        let store = temporaryDirectory() + ".sqlite"
        let data = temporaryDirectory()
        let first = try await GatewayProcess.start(store: store, devicePort: try RestartPort.pick())
        let (devices, tokens) = try await Self.devices(20, gateway: first, data: data)
        // Rounds of 1,000 pushes; the kill comes in the middle of the third, as its 2,500th 200 arrives.
        let answered = Counter()
        var accepted = Set<String>()
        for _ in 0..<10 {
            let round = try await Self.send((0..<1000).map { tokens[$0 % tokens.count] }, gateway: first, connections: 8) {
                if answered.increment() == 2500 { first.process.signal(SIGKILL) }
            }
            accepted.formUnion(round)
            if round.count < 1000 { break }
        }
        #expect(await first.process.exitTime(within: HangGuard.limit) != nil)
        #expect(!accepted.isEmpty)
        print("chaos: \(accepted.count) pushes answered 200 before the kill")

        let second = try await GatewayProcess.start(store: store, devicePort: first.devicePort)
        let outcomes = try await Self.outcomes(of: accepted, gateway: second, within: HangGuard.limit)
        #expect(outcomes.count == accepted.count, "\(accepted.count - outcomes.count) of \(accepted.count) accepted pushes have no outcome")
        #expect(Set(outcomes.values).isSubset(of: ["displayed", "replaced", "dropped"]), "\(Set(outcomes.values))")
        await devices.stop()
        await second.process.stop()
    }
}

/// A count shared by concurrent tasks.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds one and returns the new count.
    func increment() -> Int { value.withLock { $0 += 1; return $0 } }
}
