import APNSimProvider
import AsyncHTTPClient
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import NIOCore
import Testing

/// Gateways on PostgreSQL (docs/cluster.md), as real processes against Debian's server started by the test. Only in
/// `.ci/run`'s cluster step (`APNSIM_CLUSTER_TESTS=1`), which fails unless these ran.
@Suite("Cluster: gateways on PostgreSQL", .serialized, .endToEnd, .enabled(if: PostgresServer.isEnabled))
struct ClusterTests {
    @Test("PostgreSQL stopped: pushes are answered 503 ServiceUnavailable and /readyz says why; started again, both recover without a restart and every push answered 200 is displayed")
    func outage() async throws {
        try await PostgresServer.with { postgres in try await Self.outage(postgres) }
    }

    static func outage(_ postgres: PostgresServer) async throws {
        let data = temporaryDirectory()
        let gateway = try await GatewayProcess.start(environment: ["APNSIM_STORE": postgres.address])
        defer { gateway.process.signal(SIGINT) }
        let (devices, tokens) = try await ChaosTests.devices(1, gateway: gateway, data: data)
        defer { devices.signal(SIGINT) }
        let client = try await gateway.connect()
        let jwt = try GatewayProcess.jwt()
        func push(_ title: String) async throws -> (id: String, status: Int, body: String) {
            try await Self.push(title, to: tokens[0], on: client, jwt: jwt)
        }
        let before = try await push("before")
        #expect(before.status == 200)

        try await postgres.stop()
        let reason = try await readiness(of: gateway, until: { $0 == 503 })
        #expect(reason.contains("the store postgres://apnsim@127.0.0.1:\(postgres.port)/apnsim"), "\(reason)")
        #expect(!reason.contains("apnsim-test"), "no password in what the gateway says: \(reason)")
        let during = try await push("during")
        #expect(during.status == 503 && during.body == #"{"reason":"ServiceUnavailable"}"#, "\(during)")

        try await postgres.restart()
        _ = try await readiness(of: gateway, until: { $0 == 200 })
        let after = try await push("after")
        #expect(after.status == 200)
        await client.close()

        let records = try await gateway.control.get("/v1/deliveries?wait=60&count=2").body?.array ?? []
        let shown = Dictionary(uniqueKeysWithValues: records.compactMap { record -> (String, String)? in
            guard let id = record["apnsId"]?.string, let outcome = record["outcome"]?.string else { return nil }
            return (id, outcome)
        })
        #expect(shown == [before.id: "displayed", after.id: "displayed"], "the refused push was never accepted: \(shown)")
        let refused = try await gateway.control.get("/v1/sends?apnsId=\(during.id)").body?.array?.first
        #expect(refused?["status"]?.integer == 503, "the refusal is in the record too, written once the store was back")
    }

    @Test("Three replicas started at once on an empty database: it is migrated once, each starts, and a push through each of the two a device is not linked to is displayed")
    func threeAtOnce() async throws {
        try await PostgresServer.with { postgres in
            async let first = Self.replica("r1", on: postgres)
            async let second = Self.replica("r2", on: postgres)
            async let third = Self.replica("r3", on: postgres)
            let replicas = try await [first, second, third]
            defer { for replica in replicas { replica.process.signal(SIGINT) } }
            #expect(try await postgres.query("SELECT version FROM apnsim_schema") == ["5"], "one migration, to the current schema")
            let data = temporaryDirectory()
            let (devices, tokens) = try await ChaosTests.devices(1, gateway: replicas[0], data: data)
            defer { devices.signal(SIGINT) }
            let jwt = try GatewayProcess.jwt()
            var ids: [String] = []
            for replica in replicas[1...] {
                let client = try await replica.connect()
                let answer = try await Self.push("through \(replica.providerPort)", to: tokens[0], on: client, jwt: jwt)
                #expect(answer.status == 200, "\(answer)")
                ids.append(answer.id)
                await client.close()
            }
            let records = try await replicas[0].control.get("/v1/deliveries?wait=60&count=2").body?.array ?? []
            #expect(Set(records.compactMap { $0["outcome"]?.string == "displayed" ? $0["apnsId"]?.string : nil }) == Set(ids))
            #expect(try await postgres.query("SELECT replica FROM device_links") == ["r1"])
        }
    }

    @Test("Control requests about a device linked to another replica are answered by that one: a tap (its record waking the asking replica's readers), an activity started (listed by either) and ended, all through the replica the device is not linked to; either lists the device as its replica has it")
    func controlAcross() async throws {
        try await PostgresServer.with { postgres in
            let home = try await Self.replica("home", on: postgres)
            defer { home.process.signal(SIGINT) }
            let other = try await Self.replica("other", on: postgres)
            defer { other.process.signal(SIGINT) }
            let data = temporaryDirectory()
            let (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: data)
            defer { devices.signal(SIGINT) }
            let device = try #require(try await home.control.get("/v1/devices").body?.array?.first?["id"]?.string)
            // The push through `other` has it read the token, and where the device is linked, from the store.
            let client = try await other.connect()
            let pushed = try await Self.push("tap me", to: tokens[0], on: client, jwt: try GatewayProcess.jwt())
            await client.close()
            _ = try await home.control.get("/v1/deliveries?apnsId=\(pushed.id)&wait=60&count=1")

            // The tap is recorded by `home`, the device's replica; `other`'s event stream (and its interactions'
            // long-poll, woken by the same signal) hears of it only through PostgreSQL.
            let stream = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "http://127.0.0.1:\(other.controlPort)/v1/events"),
                                                               timeout: HangGuard.deadline)
            var (text, tapped, heard) = ("", false, false)
            for try await chunk in stream.body {
                text += String(buffer: chunk)
                if !tapped, text.contains("event: hello") {
                    (text, tapped) = ("", true)
                    let tap = try await other.control.post("/v1/devices/\(device)/tap", #"{"apnsId":"\#(pushed.id)"}"#)
                    #expect(tap.status == 200, "\(tap.text)")
                    #expect(tap.body?["apnsId"]?.string == pushed.id)
                } else if tapped, text.contains("event: deliveries") {
                    text = ""
                    if try await other.control.get("/v1/interactions?apnsId=\(pushed.id)").body?.array?.count == 1 {
                        heard = true
                        break
                    }
                }
            }
            #expect(heard, "the tap recorded through home woke other's readers")
            let started = try await other.control.post("/v1/devices/\(device)/activities", #"""
                {"bundleID":"com.example.app","attributesType":"DeliveryAttributes","attributes":{"orderID":"42"},
                 "contentState":{"status":"packed","etaMinutes":40}}
                """#)
            #expect(started.status == 201, "\(started.text)")
            let activity = try #require(started.body?["id"]?.string)
            // Either lists it as `home`, the device's replica, has it (`other` never had the device: it asks `home`).
            for replica in [home, other] {
                let listed = try await replica.control.get("/v1/activities?device=\(device)").body?.array
                #expect(listed?.compactMap { $0["id"]?.string } == [activity] && listed?.first?["replica"]?.string == "home",
                        "\(String(describing: listed))")
            }
            let ended = try await other.control.post("/v1/activities/\(activity)/end", #"{"contentState":{"status":"delivered","etaMinutes":0}}"#)
            #expect(ended.status == 200, "\(ended.text)")
            #expect(try await other.control.post("/v1/activities/nothing/end").status == 404, "no replica has it")

            // Both list the device as `home` has it: linked there, online.
            for replica in [home, other] {
                let listed = try await replica.control.get("/v1/devices").body?.array?.first { $0["id"]?.string == device }
                #expect(listed?["replica"]?.string == "home" && listed?["online"]?.bool == true, "\(String(describing: listed))")
            }
        }
    }

    @Test("A replica SIGKILLed under load: its devices link to the others, and every push answered 200 is displayed (or replaced by a newer one while its device was between links), what the killed one held delivered by another")
    func replicaKilled() async throws {
        try await PostgresServer.with { postgres in
            var started: [GatewayProcess] = []
            for name in ["r1", "r2", "r3"] {
                started.append(try await Self.replica(name, on: postgres))
            }
            let replicas = started
            defer { for replica in replicas { replica.process.signal(SIGKILL) } }
            let data = temporaryDirectory()
            let count = 12
            let devices = try await ApnsimProcess(["device", "--count", String(count), "--id", "spread", "--certs", "Certs", "--data", data,
                                                   "--stop-when-stdin-closes"] + replicas.flatMap { ["--gateway", "127.0.0.1:\($0.devicePort)"] }
                                                  + DeviceProcess.hangGuardTimeouts)
            defer { devices.signal(SIGINT) }
            let printed = try await devices.waitForOutput(timeout: HangGuard.limit) { $0.components(separatedBy: "registered, token").count - 1 >= count }
            let tokens = printed.split(whereSeparator: \.isNewline).filter { $0.contains("registered, token") }.compactMap { $0.split(separator: " ").last.map(String.init) }
            let linked = try await postgres.query("SELECT replica FROM device_links")
            #expect(Set(linked).contains("r1"), "some devices are linked to the replica to be killed: \(linked)")

            // Rounds of pushes through r2 and r3 to every device; r1 is killed as the 300th 200 arrives.
            let answered = Counter()
            let killed = replicas[0]
            var accepted = Set<String>()
            for round in 0..<6 {
                let through = replicas[1 + round % 2]
                accepted.formUnion(try await ChaosTests.send((0..<200).map { tokens[$0 % tokens.count] }, gateway: through, connections: 4) {
                    if answered.increment() == 300 { killed.process.signal(SIGKILL) }
                })
            }
            #expect(await replicas[0].process.exitTime(within: HangGuard.limit) != nil)
            #expect(accepted.count == 1200, "r2 and r3 answered every push: \(accepted.count)")
            let outcomes = try await ChaosTests.outcomes(of: accepted, gateway: replicas[1], within: HangGuard.limit)
            #expect(outcomes.count == accepted.count, "\(accepted.count - outcomes.count) of \(accepted.count) accepted pushes have no outcome")
            // A push for a device between links is stored, one per app, as APNs does: the older ones are replaced.
            var notShown: [String] = []
            for id in outcomes.filter({ $0.value != "displayed" }).keys.sorted() {
                let record = try await replicas[1].control.get("/v1/deliveries?apnsId=\(id)").body?.array?.first
                if record?["detail"]?.string?.hasPrefix("replaced by a newer push") != true { notShown.append("\(String(describing: record))") }
            }
            #expect(notShown.isEmpty, "\(notShown.count) neither displayed nor replaced: \(notShown.prefix(3))")
            // Counted per delivery: a device showing one it showed before says so in its receipt.
            let shownTwice = try await replicas[1].control.get("/v1/deliveries?limit=2000").body?.array?
                .filter { $0["detail"]?.string?.hasPrefix("shown again") == true }.count
            #expect(shownTwice == 0, "deliveries shown twice: \(String(describing: shownTwice))")
            #expect(try await !postgres.query("SELECT replica FROM device_links").contains("r1"), "no device is linked to r1 any more")
        }
    }

    @Test("Two replicas on one PostgreSQL: a push sent through the replica the device is not linked to is displayed, its token read from the store; an event stream and a long-poll on one replica are woken by a receipt the other recorded; one sent while the device is away is displayed when it links again")
    func handOff() async throws {
        try await PostgresServer.with { postgres in try await Self.handOff(postgres) }
    }

    static func handOff(_ postgres: PostgresServer) async throws {
        let data = temporaryDirectory()
        let home = try await Self.replica("home", on: postgres)
        defer { home.process.signal(SIGINT) }
        let other = try await Self.replica("other", on: postgres)
        defer { other.process.signal(SIGINT) }
        // The device links to `home` only; it printed its token once `home` had written it.
        var (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: data)
        defer { devices.signal(SIGINT) }
        let jwt = try GatewayProcess.jwt()
        let client = try await other.connect()
        func push(_ title: String) async throws -> (id: String, status: Int, body: String) {
            try await Self.push(title, to: tokens[0], on: client, jwt: jwt)
        }
        let handed = try await push("through the other replica")
        #expect(handed.status == 200, "\(handed)")
        let shown = try await home.control.get("/v1/deliveries?apnsId=\(handed.id)&wait=60&count=1").body?.array?.first
        #expect(shown?["outcome"]?.string == "displayed", "\(String(describing: shown))")

        // A push through `home` alone: `other` writes nothing of it, so only what `home` recorded, told through
        // PostgreSQL, can make `other`'s event stream say the deliveries changed (it says nothing else but that it is
        // still there); its long-poll, woken the same way, reads the receipt.
        let id = UUID().uuidString
        let stream = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "http://127.0.0.1:\(other.controlPort)/v1/events"),
                                                           timeout: HangGuard.deadline)
        var (text, pushed, shownThroughOther) = ("", false, false)
        let direct = try await home.connect()
        for try await chunk in stream.body {
            text += String(buffer: chunk)
            if !pushed, text.contains("event: hello") {
                (text, pushed) = ("", true)
                let straight = try await Self.push("through home", to: tokens[0], on: direct, jwt: try GatewayProcess.jwt(), id: id)
                #expect(straight.status == 200, "\(straight)")
            } else if pushed, text.contains("event: deliveries") {
                text = ""
                let record = try await other.control.get("/v1/deliveries?apnsId=\(id)").body?.array?.first
                if record?["outcome"]?.string == "displayed" {
                    shownThroughOther = true
                    break
                }
            }
        }
        #expect(shownThroughOther)
        await direct.close()
        let read = try await home.control.get("/v1/sends?apnsId=\(handed.id)").body?.array?.first
        #expect(read?["status"]?.integer == 200, "the send the other replica recorded, read through the home replica")

        // Away: the push waits, on whichever replica, and is shown once the device links to `home` again.
        await devices.stop()
        try await home.control.waitUntil("the device to be offline everywhere") {
            try await home.control.get("/v1/devices").body?.array?.first?["online"]?.bool == false
        }
        let waited = try await push("while away")
        #expect(waited.status == 200, "\(waited)")
        (devices, tokens) = try await ChaosTests.devices(1, gateway: home, data: data)
        let later = try await home.control.get("/v1/deliveries?apnsId=\(waited.id)&wait=60&count=1").body?.array?.first
        #expect(later?["outcome"]?.string == "displayed", "\(String(describing: later))")
        await client.close()
    }

    /// A gateway process on `postgres`, replica `name` (`--replica`).
    static func replica(_ name: String, on postgres: PostgresServer) async throws -> GatewayProcess {
        try await GatewayProcess.start(extra: ["--replica", name], environment: ["APNSIM_STORE": postgres.address])
    }

    /// An alert titled `title` to `token`, with an apns-id of its own: the ID, and the answer's status and body.
    static func push(_ title: String, to token: String, on client: ProviderClient, jwt: String,
                     id: String = UUID().uuidString) async throws -> (id: String, status: Int, body: String) {
        let response = try await client.send(.push(token: token, payload: #"{"aps":{"alert":{"title":"\#(title)"}}}"#,
                                                  headers: GatewayProcess.headers(jwt: jwt, apnsID: id)))
        return (id, response.status, response.bodyText)
    }

    /// `/readyz`'s reason once its status passes `until`, asked again each time the gateway's event stream says
    /// something changed (the store going away or coming back is one).
    static func readiness(of gateway: GatewayProcess, until: @escaping @Sendable (Int) -> Bool) async throws -> String {
        let control = gateway.control
        try await control.waitUntil("/readyz to change") { until(try await control.get("/readyz").status) }
        return try await control.get("/readyz").body?["reason"]?.string ?? ""
    }
}
